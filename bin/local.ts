import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readConfig, readLocalConfig } from '#core/config';
import { createDeps, forRequest, type Deps, type WebhookSetup } from '#core/deps';
import { loadMasterKey, localKeyVault } from '#core/key-vault';
import { createLogger } from '#core/logger';
import { outboxMailer } from '#core/mail/outbox';
import { sha256Hex } from '#core/ids';
import { bootstrap } from '../functions/admin/owners';
import { buildDashboard } from '../dashboard/build';
import { buildPortal } from '../portal/build';
import { localSink } from '../functions/events/sinks';
import type { EventSink } from '../functions/events/consumer';
import { attemptTimeoutMs, deliveryActor } from '../functions/delivery/deliver';
import { startLocalDeliveryQueue, type LocalDeliveryQueue } from '../local/webhook-queue';
import { startLocalEventStream } from '../local/event-stream';
import { startLocalServer } from '../local/server';
import { createSignInCodes, signInCodeLifetimeMs } from '../local/sign-in';
import { addMissingIndexes, ensureTable, externalStore, startLocalStore } from '../local/store';
import { migrateLicenseIndex, migrateLookupEntries, migrateTrialSecrets } from '../functions/admin/maintenance';
import * as apiKeys from '#data/api-key.repo';
import * as migrations from '#data/migrations';
import { lookupMigration } from '#data/model/lookup';
import { trialSecretsMigration } from '#data/model/trial';

interface DemoOwner {
  team_id: string;
  app_id: string;
  api_key: string;
}

/**
 * The demo owner's key is kept in the local data directory so every start can
 * print a working curl line; on AWS keys are only ever shown once. The saved
 * owner may belong to another store (the embedded one, before DYNAMODB_ENDPOINT
 * was set): the store decides whether it is still good.
 */
async function demoOwner(deps: Deps, dataDir: string): Promise<DemoOwner> {
  const file = join(dataDir, 'demo-owner.json');
  if (existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as DemoOwner;
    if (await apiKeys.get(deps.table, sha256Hex(saved.api_key))) return saved;
  }
  mkdirSync(dataDir, { recursive: true });
  const owner = await bootstrap(deps);
  writeFileSync(file, `${JSON.stringify(owner, null, 2)}\n`, { mode: 0o600 });
  return owner;
}

/** Every event to each sink in turn: the development webhook first, then the webhook delivery queue. */
function bothSinks(first: EventSink, second: EventSink): EventSink {
  return {
    async deliver(events) {
      await first.deliver(events);
      await second.deliver(events);
    },
  };
}

async function main() {
  const config = readConfig();
  const local = readLocalConfig();
  const started = Date.now();
  const external = config.dynamodbEndpoint;
  const store = external
    ? externalStore({ ...config, dynamodbEndpoint: external })
    : await startLocalStore({ port: local.dynamodbPort, dataDir: local.dataDir });
  const created = await ensureTable(store.client, config.tableName);
  const keyVault = localKeyVault(loadMasterKey(local.dataDir));
  // Redeliveries from the webhook routes go to the local delivery queue, made below once the deps exist.
  let deliveryQueue: LocalDeliveryQueue | undefined;
  const webhooks: WebhookSetup = { policy: 'local', queue: { send: (message, delaySeconds) => deliveryQueue!.send(message, delaySeconds) } };
  const outbox = join(local.dataDir, 'outbox');
  // Every message goes to a file; the console line that names it prints at every log level but silent.
  const mailer = outboxMailer(outbox, createLogger(config.logLevel === 'silent' ? 'silent' : 'info'));
  const deps = createDeps({ ...config, dynamodbEndpoint: store.endpoint }, { client: store.client, keyVault, webhooks, mailer });
  // The delivery function's code on an in-memory queue, on the deployed schedule; http and loopback targets are allowed here only.
  deliveryQueue = startLocalDeliveryQueue({
    deps: { ...forRequest(deps, undefined, deliveryActor), keyVault, policy: 'local', attemptTimeoutMs },
  });
  const localDeliveryQueue = deliveryQueue;
  // Applications a data directory kept from before they were listed per team get their index entry. Not on
  // another store: that may be a large table, where a scan at every start costs real money (`admin app index`).
  if (!external) await migrations.indexUnlisted(deps.table);
  // A data directory from before licenses had a listing index of their own gets it, with its licenses moved there.
  if (!external && (await addMissingIndexes(store.client, config.tableName)).length > 0) await migrateLicenseIndex(deps);
  // Applications of a data directory from before trials had secrets get theirs, once.
  if (!external && !(await migrations.hasRun(deps.table, trialSecretsMigration))) await migrateTrialSecrets(deps);
  // A data directory from before /license/find gets the lookup entries of its licenses, once.
  if (!external && !(await migrations.hasRun(deps.table, lookupMigration))) await migrateLookupEntries(deps);
  const owner = await demoOwner(deps, local.dataDir);
  const signInCodes = createSignInCodes();
  const server = await startLocalServer({
    deps,
    port: local.port,
    rateLimit: local.rateLimit.enabled ? local.rateLimit : undefined,
    clientRateLimit: local.rateLimit.enabled ? local.clientRateLimit : undefined,
    inboundRateLimit: local.rateLimit.enabled ? local.stripeWebhookRateLimit : undefined,
    // Built at every start (esbuild, well under a second), so the dashboard always matches the checkout.
    dashboard: { dir: buildDashboard(join(local.dataDir, 'dashboard')), signInCodes },
    portal: { dir: buildPortal(join(local.dataDir, 'portal')) },
  });
  // Emails link to this server's portal unless PORTAL_URL names another; the port is known only now.
  deps.config.portalUrl ??= `${server.url}/portal/`;
  // The events consumer over the store's stream, as the event source mapping runs it on AWS.
  const events = await startLocalEventStream({
    client: store.client,
    endpoint: store.endpoint,
    region: config.region,
    tableName: config.tableName,
    pollMs: 500,
    deps: { ...deps, sink: bothSinks(localSink({ webhookUrl: local.eventsWebhookUrl, logger: deps.logger }), localDeliveryQueue.sink) },
  });
  const storeLine = external
    ? `DynamoDB at ${store.endpoint} (DYNAMODB_ENDPOINT), table ${config.tableName} ${created ? 'created now' : 'already there'}`
    : `embedded DynamoDB Local on ${store.endpoint}, table ${config.tableName}, data in ${local.dataDir}/`;

  process.stdout.write(
    [
      `Licensing service on ${server.url} (ready in ${Date.now() - started} ms)`,
      `  store:      ${storeLine}`,
      `  demo team:  ${owner.team_id}`,
      `  demo app:   ${owner.app_id}`,
      `  API key:    ${owner.api_key}`,
      `  dashboard:  ${server.url}/dashboard/#code=${signInCodes.mint(owner.api_key)} (signs in once, within ${signInCodeLifetimeMs / 60_000} minutes; then paste the API key)`,
      `  portal:     ${server.url}/portal/?app=${owner.app_id} (the customers' portal of the demo app: docs/portal.md#trying-it-locally)`,
      `  API docs:   ${server.url}/docs/ (OpenAPI document: ${server.url}/openapi.json)`,
      `  events:     read from the table's stream; LOG_LEVEL=debug prints them${local.eventsWebhookUrl ? `, each POSTed to ${local.eventsWebhookUrl}` : ''}`,
      '  webhooks:   delivered from an in-memory queue; http and loopback targets allowed (docs/webhooks.md#locally)',
      `  email:      written to ${outbox}/, one file a message, each named on the console (docs/portal.md#email)`,
      '',
      'Try it:',
      `  curl -s ${server.url}/subscription/create -H 'x-api-key: ${owner.api_key}' -H 'Content-Type: application/json' \\`,
      `    -d '{"app_id":"${owner.app_id}","name":"Pro","level":1,"single_key_per_hwid":false}'`,
      `  curl -s ${server.url}/auth -H 'Content-Type: application/json' -d '{"app_id":"${owner.app_id}","license":"NO-SUCH-KEY"}'`,
      '  # an end user moves a license to a new computer: release its devices, then /auth from the new one binds it',
      `  curl -s ${server.url}/reset-hwid -H 'Content-Type: application/json' -d '{"app_id":"${owner.app_id}","license":"NO-SUCH-KEY"}'`,
      external ? 'Ctrl-C stops the server; the store keeps running.' : 'Ctrl-C stops the server and the store; data persists.',
      '',
    ].join('\n'),
  );

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await server.close();
    await events.stop();
    localDeliveryQueue.stop();
    await store.stop();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
