import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { getItem, transactWrite, type Table } from './db';
import { keys } from './keys';
import { cancelledByCondition, cancelledByConflict } from './retry';

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
  await Promise.allSettled(
    hwids.map((hwid) =>
      table.doc.send(
        new DeleteCommand({
          TableName: table.name,
          Key: keys.hwid(license.app_id, hwid),
          // Gone already (a resent attempt) counts as done.
          ConditionExpression: 'attribute_not_exists(pk) OR license_key = :license_key',
          ExpressionAttributeValues: { ':license_key': license.key },
        }),
      ),
    ),
  );
}

/**
 * Removes an HWID's index item when the license it points at (in the
 * claimer's app, under either form of its key) no longer holds that HWID, in
 * one transaction with checks that it still does not. True when the item is
 * gone and a claim may try again.
 */
export async function releaseStaleIndexItem(table: Table, claimer: { app_id: string; team_id: string }, hwid: string): Promise<boolean> {
  const key = keys.hwid(claimer.app_id, hwid);
  const item = await getItem(table, key);
  if (!item) return true;
  const holder = String(item.license_key);
  const stillFree = { ':hwid': hwid, ':app': claimer.app_id };
  try {
    await transactWrite(table, [
      { Delete: { TableName: table.name, Key: key, ConditionExpression: 'license_key = :holder', ExpressionAttributeValues: { ':holder': holder } } },
      ...keys.licenseCandidates(holder, claimer.team_id).map((candidate) => ({
        ConditionCheck: {
          TableName: table.name,
          Key: candidate,
          ConditionExpression: 'attribute_not_exists(pk) OR app_id <> :app OR NOT (contains(hwids, :hwid) OR hwid = :hwid)',
          ExpressionAttributeValues: stillFree,
        },
      })),
    ]);
    return true;
  } catch (error) {
    if (cancelledByCondition(error) || cancelledByConflict(error)) return false;
    throw error;
  }
}
