import { batchGetItems, itemId } from './batch-get';
import { conditional, transactWrite, type Table, type TransactItem } from './db';
import { condition, conditions, part } from './expressions';
import { hwidIndexItem, licenseItem } from './items';
import { keys } from './keys';
import { trialAddressSchema, trialClaimSchema, type TrialStart, type TrialStartOutcome, type TrialStartState } from './model/trial';

/**
 * What a start decides on, as it stands now (strongly consistent, one
 * BatchGetItem): the device's claim and the source address's start times.
 */
export async function startState(table: Table, appId: string, hwid: string, addressHash: string): Promise<TrialStartState> {
  const claimKey = keys.trialClaim(appId, hwid);
  const addressKey = keys.trialAddress(appId, addressHash);
  const found = await batchGetItems(table, [claimKey, addressKey], { consistentRead: true });
  const claim = found.get(itemId(claimKey));
  const address = found.get(itemId(addressKey));
  return { claim: claim && trialClaimSchema.parse(claim), starts: address && trialAddressSchema.parse(address).starts };
}

/**
 * A trial started, in one transaction: the license, the device's claim (new:
 * the first request for this device wins, every other one finds its claim),
 * the device's HWID index item where the subscription keeps one, and the
 * address's start times, replaced only while they are as the start read them
 * (so of concurrent starts from one address each decides on the list the one
 * before it wrote). Its token makes the SDK's resend of an applied attempt
 * succeed instead of finding its own claim and list.
 */
export async function start(table: Table, trial: TrialStart): Promise<TrialStartOutcome> {
  const { license, claim, address } = trial;
  const hwid = claim.hwid;
  const addressAsRead = condition(address.read === undefined ? conditions.isNew : part('#starts = :read', { ':read': address.read }, { '#starts': 'starts' }));
  const items: TransactItem[] = [
    { Put: { TableName: table.name, Item: { ...keys.trialClaim(claim.app_id, hwid), ...claim }, ...condition(conditions.isNew) } },
    { Put: { TableName: table.name, Item: { ...keys.trialAddress(claim.app_id, address.hash), starts: address.starts, ttl: address.expiresAt }, ...addressAsRead } },
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
  if (ofAddress === 'ConditionalCheckFailed') return 'address_changed';
  if (ofDevice === 'ConditionalCheckFailed') return 'device_taken';
  if (written.reasons.includes('TransactionConflict')) return 'conflict';
  // A trial's key (random, or named for the device by its application's secret) is taken only with the device's claim,
  // which is checked first: a failure there is a fault.
  throw new Error(`a trial's transaction was cancelled for ${String(ofLicense)} on its license`);
}
