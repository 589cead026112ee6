import { batchGetItems, itemId } from './batch-get';
import { conditional, deleteItem, getItem, transactWrite, type Table, type TransactItem } from './db';
import { condition, conditions } from './expressions';
import { storedLeaseSchema } from './model/lease';
import { ownEntry } from '#shared/own-keys';
import { keys } from './keys';

/** A license as these need it: where its index items live and how they name it. */
interface IndexHolder {
  app_id: string;
  key: string;
}

/**
 * Index items a license gave up that its own transaction had no room for (a
 * license with nearly 100 devices), deleted right after it, each on its own
 * and only while it still points at that license. Should this fail half way,
 * the items left point at a license that no longer holds their HWID: the next
 * claim of such an HWID finds that out and removes the item
 * (`releaseStaleIndexItem`), so nothing stays blocked.
 */
export async function releaseOverflow(table: Table, license: IndexHolder, hwids: readonly string[]): Promise<void> {
  // Gone already (a resent attempt) counts as done.
  await Promise.allSettled(hwids.map((hwid) => deleteItem(table, keys.hwid(license.app_id, hwid), condition(conditions.freeOrHeldBy(license.key)))));
}

/**
 * Removes an HWID's index item when the license it points at (in the
 * claimer's app, under either form of its key) no longer holds that HWID, in
 * one transaction with checks that it still does not. When that license still
 * lists the HWID but its lease ended before `now` (a floating seat: model/lease.ts),
 * the lease is removed from it in the same transaction as the index item, so
 * a heartbeat that would renew it afterwards fails and decides again. True
 * when the item is gone and a claim may try again.
 */
export async function releaseStaleIndexItem(table: Table, claimer: { app_id: string; team_id: string }, hwid: string, now?: string): Promise<boolean> {
  const key = keys.hwid(claimer.app_id, hwid);
  const item = await getItem(table, key);
  if (!item) return true;
  const holder = String(item.license_key);
  const stillFree = { ':hwid': hwid, ':app': claimer.app_id };
  const release = { Delete: { TableName: table.name, Key: key, ...condition(conditions.heldBy(holder)) } };
  const released = await conditional(
    transactWrite(table, [
      release,
      ...keys.licenseCandidates(holder, claimer.team_id).map((candidate) => ({
        ConditionCheck: {
          TableName: table.name,
          Key: candidate,
          ConditionExpression: 'attribute_not_exists(pk) OR app_id <> :app OR NOT (contains(hwids, :hwid) OR hwid = :hwid)',
          ExpressionAttributeValues: stillFree,
        },
      })),
    ]),
    'race',
  );
  if (released.held) return true;
  return now !== undefined && releaseEndedLease(table, claimer, hwid, holder, release, now);
}

/** The second way an index item is stale: its license's lease on the HWID has ended. */
async function releaseEndedLease(
  table: Table,
  claimer: { app_id: string; team_id: string },
  hwid: string,
  holder: string,
  release: TransactItem,
  now: string,
): Promise<boolean> {
  const candidates = keys.licenseCandidates(holder, claimer.team_id);
  const items = await batchGetItems(table, candidates, { consistentRead: true });
  for (const candidate of candidates) {
    const license = items.get(itemId(candidate));
    const lease = storedLeaseSchema.safeParse(ownEntry(license?.leases as Record<string, unknown> | undefined, hwid));
    if (!license || license.app_id !== claimer.app_id || !lease.success || Math.abs(lease.data) > Date.parse(now)) continue;
    const removed = await conditional(
      transactWrite(table, [
        release,
        {
          Update: {
            TableName: table.name,
            Key: candidate,
            UpdateExpression: 'REMOVE leases.#hwid',
            ConditionExpression: 'app_id = :app AND leases.#hwid = :lease',
            ExpressionAttributeNames: { '#hwid': hwid },
            ExpressionAttributeValues: { ':app': claimer.app_id, ':lease': lease.data },
          },
        },
      ]),
      'race',
    );
    return removed.held;
  }
  return false;
}
