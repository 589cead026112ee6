import { addSeconds } from '#shared/clock';
import { transactWrite, type Table, type TransactItem } from './db';
import { keys } from './keys';
import { boundAsRead } from './license.repo';
import { liveLeases, storedLease, storedLeases, type Lease } from './model/lease';
import type { License } from './model/license';
import { cancelledByCondition, cancelledByConflict } from './retry';

/** Writes of floating seats outside /auth's own write (that one is in auth.repo.ts). */
export function createLeaseRepo(table: Table) {
  return {
    /**
     * Gives up `hwid`'s seat (POST /release): the device leaves the list and its
     * lease goes, with its `single_key_per_hwid` index item, in one transaction.
     * The device is removed by its position, conditional on still being there
     * with the lease read, so seats taken beside it meanwhile (appended after
     * it) do not get in the way; when it is the first, `hwid` becomes the next
     * one, conditional on that one too. The token makes a resent attempt succeed.
     */
    async release(license: License, hwid: string, lease: Lease, releaseClaim: boolean): Promise<'released' | 'changed'> {
      const position = license.hwids.indexOf(hwid);
      if (position < 0) return 'changed';
      const values: Record<string, unknown> = { ':hwid': hwid, ':lease': storedLease(lease) };
      const conditions = [`hwids[${position}] = :hwid`, 'leases.#hwid = :lease'];
      let sets = '';
      if (position === 0) {
        const next = license.hwids[1];
        sets = 'SET hwid = :next ';
        values[':next'] = next ?? null;
        if (next === undefined) {
          conditions.push('size(hwids) = :one');
          values[':one'] = 1;
        } else conditions.push('hwids[1] = :next');
      }
      const items: TransactItem[] = [
        {
          Update: {
            TableName: table.name,
            Key: keys.licenseOf(license),
            UpdateExpression: `${sets}REMOVE hwids[${position}], leases.#hwid`,
            ConditionExpression: conditions.join(' AND '),
            ExpressionAttributeNames: { '#hwid': hwid },
            ExpressionAttributeValues: values,
          },
        },
      ];
      if (releaseClaim) {
        items.push({
          Delete: {
            TableName: table.name,
            Key: keys.hwid(license.app_id, hwid),
            ConditionExpression: 'attribute_not_exists(pk) OR license_key = :key',
            ExpressionAttributeValues: { ':key': license.key },
          },
        });
      }
      try {
        await transactWrite(table, items, { retryCancellations: false });
        return 'released';
      } catch (error) {
        if (cancelledByCondition(error) || cancelledByConflict(error)) return 'changed';
        throw error;
      }
    },

    /**
     * Sets `lease_seconds` (`/hwid/set-lease`) on the license as read. From null,
     * every listed device gets a lease from `now`; between two values, leases
     * keep their ends (the next heartbeat uses the new length); to null, live
     * leases become bindings for good and ended ones are dropped with the index
     * items `heldClaims` says point at this license. Conditional on the list,
     * the leases and `lease_seconds` as read. False when any changed since.
     */
    async setLeaseSeconds(license: License, seconds: number | null, now: Date, heldClaims: readonly string[]): Promise<boolean> {
      const bound = boundAsRead(license);
      const values: Record<string, unknown> = { ':team': license.team_id, ':seconds': seconds, ...bound.values };
      const conditions = ['team_id = :team', bound.condition];
      if (license.lease_seconds === null) {
        conditions.push('(attribute_not_exists(lease_seconds) OR attribute_type(lease_seconds, :nullType))');
        values[':nullType'] = 'NULL';
      } else {
        conditions.push('lease_seconds = :oldSeconds');
        values[':oldSeconds'] = license.lease_seconds;
      }
      let expression: string;
      const items: TransactItem[] = [];
      if (license.lease_seconds === null && seconds !== null) {
        const end = addSeconds(now.toISOString(), seconds);
        expression = 'SET lease_seconds = :seconds, leases = :leases';
        values[':leases'] = Object.fromEntries(license.hwids.map((hwid) => [hwid, storedLease({ expires_at: end, borrowed: false })]));
      } else if (seconds !== null) {
        expression = 'SET lease_seconds = :seconds';
      } else {
        const kept = liveLeases(license, now).map((lease) => lease.hwid);
        expression = 'SET lease_seconds = :seconds, hwids = :kept, hwid = :first REMOVE leases';
        conditions.push('leases = :readLeases');
        Object.assign(values, { ':kept': kept, ':first': kept[0] ?? null, ':readLeases': storedLeases(license.leases) });
        for (const hwid of license.hwids.filter((listed) => !kept.includes(listed) && heldClaims.includes(listed))) {
          items.push({
            Delete: {
              TableName: table.name,
              Key: keys.hwid(license.app_id, hwid),
              ConditionExpression: 'license_key = :key',
              ExpressionAttributeValues: { ':key': license.key },
            },
          });
        }
      }
      items.unshift({
        Update: {
          TableName: table.name,
          Key: keys.licenseOf(license),
          UpdateExpression: expression,
          ConditionExpression: conditions.join(' AND '),
          ExpressionAttributeValues: values,
        },
      });
      try {
        await transactWrite(table, items);
        return true;
      } catch (error) {
        if (cancelledByCondition(error) || cancelledByConflict(error)) return false;
        throw error;
      }
    },
  };
}
