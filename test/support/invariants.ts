import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { Table } from '#data/db';

type Item = Record<string, any>;

/** Every item of the table, consistently read, page by page. */
export async function scanAll(table: Table): Promise<Item[]> {
  const items: Item[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await table.doc.send(new ScanCommand({ TableName: table.name, ConsistentRead: true, ExclusiveStartKey: startKey }));
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}

/** A license item's bound HWIDs: `hwids`, or on an item from before seats existed its `hwid`. */
function boundHwids(license: Item): string[] {
  if (Array.isArray(license.hwids)) return license.hwids;
  return license.hwid === null || license.hwid === undefined ? [] : [license.hwid];
}

/**
 * The HWIDs a license holds a claim on: on a floating license (lease_seconds
 * set) a listed HWID whose lease another license took over (the lease removed)
 * holds none, though it stays listed until the next seat taken drops it.
 */
function claimedHwids(license: Item): string[] {
  const hwids = boundHwids(license);
  if (license.lease_seconds === null || license.lease_seconds === undefined) return hwids;
  return hwids.filter((hwid) => license.leases?.[hwid] !== undefined);
}

/**
 * The data invariants of docs/security.md#what-the-service-guarantees-and-how, checked over a whole table: every bound HWID
 * index item points at exactly one license that holds that HWID (and back, under
 * single_key_per_hwid), every username index item at one license that holds that
 * username (and back), and every license the caller counted as created exists.
 * Returns one line per violation.
 */
export function checkInvariants(items: Item[], expected: { created?: string[] } = {}): string[] {
  const violations: string[] = [];
  const licenses = new Map<string, Item>();
  const subscriptions = new Map<string, Item>();
  const hwidIndex = new Map<string, Item>();
  const usernameIndex = new Map<string, Item>();
  for (const item of items) {
    const pk = String(item.pk);
    const sk = String(item.sk);
    if (pk.startsWith('LIC#')) {
      const slot = `${item.app_id}|${item.key}`;
      if (licenses.has(slot)) violations.push(`two licenses of app ${item.app_id} have key ${item.key}`);
      licenses.set(slot, item);
    }
    else if (pk.startsWith('SUB#')) subscriptions.set(item.subscription_id, item);
    else if (sk.startsWith('HWID#')) hwidIndex.set(`${item.app_id}|${item.hwid}`, item);
    else if (sk.startsWith('USER#')) usernameIndex.set(`${item.app_id}|${String(item.username).toLowerCase()}`, item);
  }

  for (const [slot, entry] of hwidIndex) {
    const license = licenses.get(`${entry.app_id}|${entry.license_key}`);
    if (!license) violations.push(`HWID ${slot} points at missing license ${entry.license_key}`);
    else if (!boundHwids(license).includes(entry.hwid) || license.app_id !== entry.app_id) {
      violations.push(`HWID ${slot} points at license ${entry.license_key} bound to ${boundHwids(license).join(',') || 'nothing'}`);
    }
  }

  const singleKeyHolders = new Map<string, string>();
  for (const license of licenses.values()) {
    const hwids = boundHwids(license);
    if (license.hwid !== (hwids[0] ?? null)) violations.push(`license ${license.key} has hwid ${String(license.hwid)} but hwids ${hwids.join(',')}`);
    if (new Set(hwids).size !== hwids.length) violations.push(`license ${license.key} lists an HWID twice`);
    if (hwids.length > (license.max_devices ?? 1)) violations.push(`license ${license.key} holds ${hwids.length} HWIDs on ${license.max_devices ?? 1} seats`);
    if (license.lease_seconds !== null && license.lease_seconds !== undefined) {
      const leased = Object.keys(license.leases ?? {});
      const unlisted = leased.filter((hwid) => !hwids.includes(hwid));
      if (unlisted.length > 0) violations.push(`license ${license.key} has leases of unlisted HWIDs ${unlisted.join(',')}`);
    }
    if (!subscriptions.get(license.subscription_id)?.single_key_per_hwid) continue;
    for (const hwid of claimedHwids(license)) {
      const slot = `${license.app_id}|${hwid}`;
      const holder = singleKeyHolders.get(slot);
      if (holder) violations.push(`HWID ${slot} bound to two single-key licenses: ${holder} and ${license.key}`);
      singleKeyHolders.set(slot, license.key);
      if (hwidIndex.get(slot)?.license_key !== license.key) violations.push(`license ${license.key} holds HWID ${slot} without its index item`);
    }
  }

  for (const [slot, entry] of usernameIndex) {
    const license = licenses.get(`${entry.app_id}|${entry.license_key}`);
    if (!license) violations.push(`username ${slot} points at missing license ${entry.license_key}`);
    else if (String(license.username).toLowerCase() !== String(entry.username).toLowerCase() || license.app_id !== entry.app_id) {
      violations.push(`username ${slot} points at license ${entry.license_key} named ${String(license.username)}`);
    }
  }
  for (const license of licenses.values()) {
    if (license.username === null || license.username === undefined) continue;
    const slot = `${license.app_id}|${String(license.username).toLowerCase()}`;
    if (usernameIndex.get(slot)?.license_key !== license.key) violations.push(`license ${license.key} named ${license.username} without its index item`);
  }

  for (const key of expected.created ?? []) {
    if (![...licenses.values()].some((license) => license.key === key)) violations.push(`created license ${key} is missing`);
  }
  return violations;
}
