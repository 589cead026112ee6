import { mapConcurrently } from '#core/domain/bulk';
import type { Deps } from '#core/deps';
import { ManagementError } from '#core/http/errors';
import { managementView } from '#core/domain/license-view';
import { describeError } from '#core/logger';
import type { OwnerInput } from '#core/http/handler';
import type { License } from '#data/model/license';
import { newLicense } from './new-license';
import type { createBulkSchema } from './schemas';
import { appAndSubscription } from './subscription-of-app';
import * as licenses from '#data/license.repo';

type Input = OwnerInput<typeof createBulkSchema>;

/** TransactWriteItems takes at most 100 items. */
const chunkSize = 100;
const parallelChunks = 4;
/** A chunk is retried with fresh keys when one of its keys exists (125 random bits: practically never). */
const chunkAttempts = 3;

/** What became of one chunk: written, not written, or unknown (an error after which it may have been applied). */
type ChunkOutcome = { written: License[] } | { unknown: License[] } | { failed: true };

/**
 * Up to 1000 licenses with CSPRNG keys, each written under `attribute_not_exists`,
 * 100 to a transaction, a few transactions in flight. Either every license is
 * written, or the ones that were or may have been written are removed again and
 * the request fails: the caller never holds a partial answer it cannot tell from
 * a complete one. A chunk whose transaction ended in an error counts as maybe
 * written (the error may have come after DynamoDB applied it); its keys are
 * fresh random ones, so removing them cannot touch anybody else's license.
 */
export async function createLicensesInBulk(deps: Deps, input: Input) {
  const { subscription, resetRules } = await appAndSubscription(deps, input);
  const sizes = Array.from({ length: Math.ceil(input.key_amount / chunkSize) }, (_, index) =>
    Math.min(chunkSize, input.key_amount - index * chunkSize),
  );

  const writeChunk = async (size: number): Promise<ChunkOutcome> => {
    for (let attempt = 0; attempt < chunkAttempts; attempt++) {
      const chunk = Array.from({ length: size }, () => newLicense(deps, { ...input, ...resetRules, subscription }));
      try {
        if ((await licenses.createAll(deps.table, chunk)) === 'created') return { written: chunk };
      } catch (error) {
        deps.logger.error('bulk create: chunk failed', describeError(error));
        return { unknown: chunk };
      }
    }
    deps.logger.error('bulk create: generated keys kept colliding', { size });
    return { failed: true };
  };

  const outcomes = await mapConcurrently(sizes, parallelChunks, writeChunk);
  const written = outcomes.flatMap((outcome) => ('written' in outcome ? outcome.written : []));
  if (written.length === input.key_amount) return written.map((license) => managementView(license, subscription, deps.clock.now()));

  const maybeWritten = outcomes.flatMap((outcome) => ('written' in outcome ? outcome.written : 'unknown' in outcome ? outcome.unknown : []));
  try {
    await licenses.deleteAll(deps.table, maybeWritten);
  } catch (error) {
    deps.logger.error('bulk create: removing the written licenses failed', describeError(error));
    throw new ManagementError(
      'SERVER_ERROR',
      'The licenses could not all be written, and removing the ones written failed: some of them may exist. Check /license/get-bulk before retrying',
    );
  }
  throw new ManagementError('SERVER_ERROR', 'The licenses could not all be written; none were created. Retry the request');
}
