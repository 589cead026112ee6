import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createDynamoClient, createTable, type Table } from '#data/db';
import * as events from '#data/events.repo';
import { AuthFailureCounter } from './auth-failures';
import { createItemCache, requestItemCache, type ItemCache } from '#data/item-cache';
import { readConfig, type Config } from './config';
import { systemClock, type Clock } from '#shared/clock';
import type { KeyVault } from './key-vault';
import type { Mailer } from './mail/mailer';
import { createLogger, withFields, type Logger } from './logger';
import { createSignerCache, type SignerCache } from './signer-cache';
import { traceDynamoClient } from './tracing';

/** Everything an action may use; tests pass fakes or a table of their own. */
export interface Deps {
  config: Config;
  logger: Logger;
  clock: Clock;
  table: Table;
  /** Items a warm Lambda may reuse for `config.cacheTtlSeconds` (the /auth hot path). */
  cache: ItemCache;
  /** Failed /auth attempts of this container, written to the daily counters by a timer at most once a minute. */
  authFailures: AuthFailureCounter;
  /** Encrypts applications' private signing keys; only the groups that sign or make keys have one. */
  keyVault: KeyVault | undefined;
  /** Applications' decrypted signing keys, kept for the container's life. */
  signers: SignerCache;
  /** Sends email: SES on a deployment with a sender identity, the outbox locally; undefined where neither is set up. */
  mailer: Mailer | undefined;
  /** Where redeliveries are queued and which targets are allowed; only the webhook group has it. */
  webhooks: WebhookSetup | undefined;
  /** The applications the request's API key is limited to (docs/api-keys.md); undefined: all of its team's. */
  appScope?: ReadonlySet<string>;
  /** When (epoch milliseconds) the request's bulk work must stop starting writes; undefined: no limit (core/domain/bulk.ts). */
  workUntil?: number;
}

export interface WebhookSetup {
  queue: DeliveryQueue;
  policy: TargetPolicy;
}

/**
 * A delivery attempt as it is queued: by the delivery function for a retry,
 * by the webhook routes for a redelivery (functions/delivery/queue.ts reads it back).
 */
export interface QueuedAttempt {
  attempt: { delivery_id: string; number: number; due_at: number; reopen?: boolean };
}

/** Where delivery attempts are queued: SQS on AWS, a queue in the process locally (functions/delivery/ and local/ make them). */
export interface DeliveryQueue {
  send(message: QueuedAttempt, delaySeconds: number): Promise<void>;
}

/** Which webhook targets are allowed: `public` on AWS, `local` for `npm start` (functions/delivery/target-policy.ts states the rules). */
export type TargetPolicy = 'public' | 'local';

export function createDeps(
  config: Config,
  overrides: { client?: DynamoDBClient; logger?: Logger; clock?: Clock; keyVault?: KeyVault; webhooks?: WebhookSetup; mailer?: Mailer } = {},
): Deps {
  const client = overrides.client ?? createDynamoClient(config);
  const table = createTable(client, config.tableName);
  const clock = overrides.clock ?? systemClock;
  const cache = createItemCache(config.cacheTtlSeconds, clock);
  const logger = overrides.logger ?? createLogger(config.logLevel);
  return {
    config,
    logger,
    clock,
    table,
    cache,
    authFailures: new AuthFailureCounter(clock, (entry) => events.addAuthFailures(table, entry.appId, entry.day, entry.count), logger),
    keyVault: overrides.keyVault,
    mailer: overrides.mailer ?? (config.sesIdentity === undefined ? undefined : lazySesMailer(config.region, config.mailFromAddress!)),
    signers: createSignerCache(),
    webhooks: overrides.webhooks,
  };
}

/**
 * The deps one API request works with: the same client and caches, with a
 * table whose transactions carry tokens derived from the request's id, read
 * through a cache that also keeps what this request read (requestItemCache),
 * and a logger that puts the request's id on every line.
 */
export function forRequest(deps: Deps, requestId: string | undefined, actor?: string, appScope?: ReadonlySet<string>, workUntil?: number): Deps {
  if (!requestId && actor === undefined && appScope === undefined && workUntil === undefined) return deps;
  const table = { ...deps.table, ...(requestId ? { requestId } : {}), ...(actor === undefined ? {} : { actor }) };
  const cache = requestItemCache(deps.cache);
  const logger = requestId ? withFields(deps.logger, { request_id: requestId }) : deps.logger;
  return { ...deps, table, cache, logger, ...(appScope ? { appScope } : {}), ...(workUntil === undefined ? {} : { workUntil }) };
}

let lambdaDeps: Promise<Deps> | undefined;

/** A Lambda builds its deps once per container, from the environment, on first use. */
export function lambdaDepsFromEnv(): Promise<Deps> {
  lambdaDeps ??= createLambdaDeps(readConfig());
  return lambdaDeps;
}

export async function createLambdaDeps(config: Config, keyVault?: KeyVault, webhooks?: WebhookSetup): Promise<Deps> {
  const client = createDynamoClient(config);
  return createDeps(config, { client: config.tracing ? await traceDynamoClient(client) : client, keyVault, webhooks });
}

/**
 * The SES mailer, its client loaded and made on the container's first message: most requests of the
 * groups that may send email never do, and the client is a module of its own in the bundle.
 */
function lazySesMailer(region: string, fromAddress: string): Mailer {
  let mailer: Promise<Mailer> | undefined;
  return {
    send: async (message) => {
      mailer ??= import('./mail/ses-mailer').then(({ createSesClient, sesMailer }) => sesMailer(createSesClient(region), fromAddress));
      return (await mailer).send(message);
    },
  };
}
