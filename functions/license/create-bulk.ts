import { createHash } from 'node:crypto';
import { mapConcurrently, mayStartWork } from '#core/domain/bulk';
import type { Deps } from '#core/deps';
import { newLicenseKey } from '#core/ids';
import { invalidInput, ManagementError } from '#core/http/errors';
import { managementView } from '#core/domain/license-view';
import { describeError } from '#core/logger';
import type { OwnerInput } from '#core/http/handler';
import type { CreateBulkPlan } from '#data/model/bulk-request';
import type { TransactItem } from '#data/db';
import { keys } from '#data/keys';
import type { License } from '#data/model/license';
import type { Subscription } from '#data/model/subscription';
import { iso } from '#shared/clock';
import { newLicense } from './new-license';
import type { createBulkSchema } from './schemas';
import { appAndSubscription, type HwidResetRules } from './subscription-of-app';
import * as bulkRequests from '#data/bulk-request.repo';
import * as licenses from '#data/license.repo';

type Input = OwnerInput<typeof createBulkSchema>;

/** TransactWriteItems takes at most 100 items. */
const chunkSize = 100;
const parallelChunks = 4;
/** A chunk is retried with fresh keys when one of its keys exists (125 random bits: practically never). */
const chunkAttempts = 3;
/** Sends, with the same licenses and so the same token, that settle a chunk whose first answer never came. */
const settleSends = 3;
/** How long a `request_id` keeps answering the licenses it made. */
const planLifetimeSeconds = 7 * 86400;

/**
 * What became of one chunk: written; not written, because it was never sent
 * (the request's time for work was over) or its keys kept colliding; or
 * unknown (an error after which it may have been applied).
 */
type ChunkOutcome = { written: License[] } | { unknown: License[] } | { skipped: true } | { collided: true };

const chunksOf = <T>(items: T[]): T[][] => Array.from({ length: Math.ceil(items.length / chunkSize) }, (_, index) => items.slice(index * chunkSize, (index + 1) * chunkSize));

/**
 * Up to 1000 licenses with CSPRNG keys, each written under `attribute_not_exists`,
 * 100 to a transaction, a few transactions in flight, and no transaction
 * started after the request's time for work (`deps.workUntil`). Without a
 * `request_id`, all or none: see `createAllOrNone`. With one, what is written
 * stays and the same request sent again finishes it: see `createUnderRequestId`.
 */
export async function createLicensesInBulk(deps: Deps, input: Input) {
  const { subscription, resetRules } = await appAndSubscription(deps, input);
  const requestId = input.request_id;
  const made =
    requestId === undefined ? await createAllOrNone(deps, input, subscription, resetRules) : await createUnderRequestId(deps, input, requestId, subscription, resetRules);
  return made.map((license) => managementView(license, subscription, deps.clock.now()));
}

const licenseOf = (deps: Pick<Deps, 'clock'>, input: Input, subscription: Subscription, resetRules: HwidResetRules): License =>
  newLicense(deps, { ...input, ...resetRules, subscription });

/** Writes one chunk in one transaction (with `alongside`); an error leaves it unknown. */
async function send(deps: Deps, chunk: License[], alongside: TransactItem[] = []): Promise<ChunkOutcome> {
  try {
    return (await licenses.createAll(deps.table, chunk, alongside)) === 'created' ? { written: chunk } : { collided: true };
  } catch (error) {
    deps.logger.error('bulk create: chunk failed', describeError(error));
    return { unknown: chunk };
  }
}

/**
 * Either every license is written, or the ones that were written are removed
 * again and the request fails: the caller never holds a partial answer it
 * cannot tell from a complete one. A slow store ends in 503
 * SERVICE_UNAVAILABLE with none kept, so the same request can simply be sent
 * again. A chunk whose transaction ended in an error may have been applied:
 * it is sent again with the same licenses, whose transaction has the same
 * token (an applied one answers success and is not applied twice), until its
 * outcome is known, so the removal cannot miss a transaction that lands after it.
 */
async function createAllOrNone(deps: Deps, input: Input, subscription: Subscription, resetRules: HwidResetRules): Promise<License[]> {
  const sizes = chunksOf(Array.from({ length: input.key_amount })).map((chunk) => chunk.length);
  const writeChunk = async (size: number): Promise<ChunkOutcome> => {
    for (let attempt = 0; attempt < chunkAttempts; attempt++) {
      if (!mayStartWork(deps)) return { skipped: true };
      const outcome = await send(deps, Array.from({ length: size }, () => licenseOf(deps, input, subscription, resetRules)));
      if (!('collided' in outcome)) return outcome;
    }
    deps.logger.error('bulk create: generated keys kept colliding', { size });
    return { collided: true };
  };
  const settle = async (outcome: ChunkOutcome): Promise<ChunkOutcome> => {
    for (let sent = 0; 'unknown' in outcome && sent < settleSends; sent++) outcome = await send(deps, outcome.unknown);
    return outcome;
  };

  const outcomes = await mapConcurrently(await mapConcurrently(sizes, parallelChunks, writeChunk), parallelChunks, settle);
  const written = outcomes.flatMap((outcome) => ('written' in outcome ? outcome.written : []));
  if (written.length === input.key_amount) return written;

  const unsettled = outcomes.flatMap((outcome) => ('unknown' in outcome ? outcome.unknown : []));
  try {
    await licenses.deleteAll(deps.table, [...written, ...unsettled]);
  } catch (error) {
    deps.logger.error('bulk create: removing the written licenses failed', describeError(error));
    throw new ManagementError(
      'SERVER_ERROR',
      'The licenses could not all be written, and removing the ones written failed: some of them may exist. Check /license/get-bulk before retrying',
    );
  }
  if (unsettled.length > 0) {
    throw new ManagementError(
      'SERVER_ERROR',
      'The licenses could not all be written, and the store never said whether some were: some of them may exist. Check /license/get-bulk before retrying',
    );
  }
  if (outcomes.some((outcome) => 'collided' in outcome)) throw new ManagementError('SERVER_ERROR', 'The licenses could not all be written; none were created. Retry the request');
  throw new ManagementError('SERVICE_UNAVAILABLE', 'The store was too slow to write every license in time; none were created. Send the request again');
}

/** The body as a create-bulk sent again must repeat it: everything but the `request_id` itself. */
function bodyHash(input: Input): string {
  const { request_id: _requestId, teamId: _teamId, requestId: _gatewayId, ...body } = input;
  return createHash('sha256').update(JSON.stringify(body), 'utf8').digest('hex');
}

/**
 * Under a `request_id` the first request stores its plan (the keys it
 * generated, its time and reset rules) before writing, and every request sent
 * again with that `request_id` (and the same body) writes exactly those
 * licenses. Each chunk's transaction also records in the plan that the chunk
 * is written, so a request sent again skips what is done and goes on from
 * there. What is written stays: a request that ran out of time answers 503
 * SERVICE_UNAVAILABLE, and the same request sent again goes on (each starts at
 * least one chunk, however slow the store) until it answers every license.
 */
async function createUnderRequestId(deps: Deps, input: Input, requestId: string, subscription: Subscription, resetRules: HwidResetRules): Promise<License[]> {
  const now = deps.clock.now();
  const fresh: CreateBulkPlan = {
    license_keys: Array.from({ length: input.key_amount }, () => newLicenseKey()),
    created_at: iso(now),
    ...resetRules,
    body_hash: bodyHash(input),
  };
  const marker = keys.bulkRequest(input.teamId, '/license/create-bulk', requestId);
  const claim = () => bulkRequests.claimCreatePlan(deps.table, marker, fresh, Math.floor(now.getTime() / 1000) + planLifetimeSeconds);
  const plan = await claim();
  if (plan.body_hash !== fresh.body_hash) throw invalidInput('request_id: was sent before with another body; use a new request_id for every new create-bulk');

  const createdAt = { now: () => new Date(plan.created_at) };
  const planned = { hwid_reset_allowed: plan.hwid_reset_allowed, hwid_reset_interval: plan.hwid_reset_interval };
  const all = plan.license_keys.map((key) => ({ ...licenseOf({ clock: createdAt }, input, subscription, planned), key }));
  // One item of each transaction is the plan's record of it.
  const chunks = Array.from({ length: Math.ceil(all.length / (chunkSize - 1)) }, (_, index) => all.slice(index * (chunkSize - 1), (index + 1) * (chunkSize - 1)));
  let started = 0;
  const writeChunk = async (index: number): Promise<ChunkOutcome> => {
    const chunk = chunks[index]!;
    if (plan.written_chunks?.has(index)) return { written: chunk };
    if (started > 0 && !mayStartWork(deps)) return { skipped: true };
    started++;
    const outcome = await send(deps, chunk, [bulkRequests.chunkWritten(deps.table, marker, index)]);
    // Another request with this request_id may have written the chunk since this one read the plan.
    if ('collided' in outcome && (await claim()).written_chunks?.has(index)) return { written: chunk };
    return outcome;
  };

  const outcomes = await mapConcurrently(chunks.map((_, index) => index), parallelChunks, writeChunk);
  if (outcomes.every((outcome) => 'written' in outcome)) return all;
  if (outcomes.some((outcome) => 'collided' in outcome)) {
    deps.logger.error('bulk create: a planned license key is taken', { key_amount: input.key_amount });
    throw new ManagementError('SERVER_ERROR', 'A license key this request_id planned is taken; send the request with a new request_id');
  }
  throw new ManagementError(
    'SERVICE_UNAVAILABLE',
    'The store was too slow to write every license in time; those written are kept. Send the same request with the same request_id to finish it',
  );
}
