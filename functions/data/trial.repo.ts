import { conditional, getItem, transactWrite, type Table, type TransactItem } from './db';
import { condition, conditions } from './expressions';
import { hwidIndexItem, licenseItem } from './items';
import { keys } from './keys';
import { trialClaimSchema, type TrialClaim, type TrialStart, type TrialStartOutcome } from './model/trial';

/** The device's claim as it stands now (strongly consistent): for deciding again after losing the claim to another request. */
export async function currentClaim(table: Table, appId: string, hwid: string): Promise<TrialClaim | undefined> {
  const item = await getItem(table, keys.trialClaim(appId, hwid), { consistentRead: true });
  return item ? trialClaimSchema.parse(item) : undefined;
}

/**
 * A trial started, in one transaction: the license, the device's claim (new:
 * the first request for this device wins, every other one finds its claim),
 * the device's HWID index item where the subscription keeps one, and the
 * address's count of the day, under its limit. Its token makes the SDK's
 * resend of an applied attempt succeed instead of finding its own claim.
 */
export async function start(table: Table, trial: TrialStart): Promise<TrialStartOutcome> {
  const { license, claim, address } = trial;
  const hwid = claim.hwid;
  const items: TransactItem[] = [
    { Put: { TableName: table.name, Item: { ...keys.trialClaim(claim.app_id, hwid), ...claim }, ...condition(conditions.isNew) } },
    {
      Update: {
        TableName: table.name,
        Key: keys.trialAddressDay(claim.app_id, address.day, address.hash),
        UpdateExpression: 'SET #ttl = :ttl ADD #started :one',
        ConditionExpression: 'attribute_not_exists(#started) OR #started < :limit',
        ExpressionAttributeNames: { '#ttl': 'ttl', '#started': 'started' },
        ExpressionAttributeValues: { ':ttl': address.expiresAt, ':one': 1, ':limit': address.limit },
      },
    },
    { Put: { TableName: table.name, Item: licenseItem(license), ...condition(conditions.isNew) } },
  ];
  if (trial.claimDevice) {
    items.push({ Put: { TableName: table.name, Item: hwidIndexItem({ app_id: claim.app_id, hwid, license_key: license.key }), ...condition(conditions.isNew) } });
  }
  const written = await conditional(transactWrite(table, items), 'race');
  if (written.held) return 'started';
  const [ofClaim, ofAddress, ofLicense, ofDevice] = written.reasons;
  // The claim first: a device whose trial exists resumes it, and that is never counted against the address.
  if (ofClaim === 'ConditionalCheckFailed') return 'claimed';
  if (ofAddress === 'ConditionalCheckFailed') return 'limit_reached';
  if (ofDevice === 'ConditionalCheckFailed') return 'device_taken';
  if (written.reasons.includes('TransactionConflict')) return 'conflict';
  // A generated key of 125 random bits is never taken; a failure there is a fault.
  throw new Error(`a trial's transaction was cancelled for ${String(ofLicense)} on its license`);
}
