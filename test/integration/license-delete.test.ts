import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { getItem } from '#data/db';
import { hwidIndexItem } from '#data/items';
import { keys } from '#data/keys';
import type { License } from '#data/model/license';
import { seedLicense, seedSubscription } from '../support/fixtures';
import { checkInvariants, scanAll } from '../support/invariants';
import { madeBeforeAll, withOwner } from '../support/owners';
import * as credentials from '#data/credentials.repo';
import * as hwids from '#data/hwid.repo';
import * as licenses from '#data/license.repo';
import * as usernames from '#data/username.repo';

const { env, owner } = withOwner();
const subscription = madeBeforeAll(() => seedSubscription(env.deps, owner, { single_key_per_hwid: true }));

/** A license bound to a device under a single-key-per-HWID subscription, with credentials: it owns two index items. */
async function boundLicenseWithCredentials(hwid: string, username: string): Promise<License> {
  const license = await seedLicense(env.deps, subscription, { hwid, first_used_at: '2026-01-01T00:00:00.000Z', expires_at: '2027-01-01T00:00:00.000Z' });
  await env.deps.table.doc.send(
    new PutCommand({ TableName: env.deps.table.name, Item: hwidIndexItem({ app_id: owner.app_id, hwid, license_key: license.key }) }),
  );
  expect(await credentials.set(env.deps.table, license, username, 'hash')).toBe('updated');
  return (await licenses.get(env.deps.table, license.key, license.team_id))!;
}

describe('POST /license/delete', () => {
  it('deletes the license with the HWID and username index items pointing at it', async () => {
    const license = await boundLicenseWithCredentials('device-1', 'Erin');

    const response = await env.post('/license/delete', { license_key: license.key }, owner.auth);

    expect(response.status).toBe(200);
    expect(response.body).toEqual({ success: true, data: { key: license.key, deleted: true } });
    expect(await licenses.get(env.deps.table, license.key, license.team_id)).toBeUndefined();
    expect(await getItem(env.deps.table, keys.hwid(owner.app_id, 'device-1'))).toBeUndefined();
    expect(await getItem(env.deps.table, keys.username(owner.app_id, 'erin'))).toBeUndefined();
  });

  it('leaves an HWID index item alone that belongs to another license on the same device', async () => {
    const holder = await boundLicenseWithCredentials('shared-device', 'frank');
    const unindexed = await seedLicense(env.deps, subscription, { hwid: 'shared-device' });

    const response = await env.post('/license/delete', { license_key: unindexed.key }, owner.auth);

    expect(response.status).toBe(200);
    expect(await hwids.get(env.deps.table, owner.app_id, 'shared-device')).toMatchObject({ license_key: holder.key });
  });

  it('deletes a license once when two deletes race: the loser answers 404', async () => {
    const license = await boundLicenseWithCredentials('device-2', 'grace');

    const responses = await Promise.all([1, 2].map(() => env.post('/license/delete', { license_key: license.key }, owner.auth)));

    expect(responses.map((response) => response.status).sort()).toEqual([200, 404]);
    expect(await getItem(env.deps.table, keys.username(owner.app_id, 'grace'))).toBeUndefined();
    expect(checkInvariants(await scanAll(env.deps.table))).toEqual([]);
  });

  it('refuses a removal based on a stale read, so a concurrent rename cannot leave an orphaned username', async () => {
    const stale = await boundLicenseWithCredentials('device-4', 'ivan');
    expect(await credentials.set(env.deps.table, stale, 'ivan-renamed', 'hash')).toBe('updated');

    expect(await licenses.remove(env.deps.table, stale, { hwidIndex: stale.hwids, usernameIndex: true })).toBe(false);

    expect(await licenses.get(env.deps.table, stale.key, stale.team_id)).toMatchObject({ username: 'ivan-renamed' });
    expect(await usernames.get(env.deps.table, owner.app_id, 'ivan-renamed')).toMatchObject({ license_key: stale.key });
  });

  it('answers 404 LICENSE_NOT_FOUND for a missing key and 400 naming license_key for a bad one', async () => {
    const missing = await env.post('/license/delete', { license_key: 'NO-SUCH-KEY' }, owner.auth);
    expect(missing.status).toBe(404);
    expect(missing.body.error_code).toBe('LICENSE_NOT_FOUND');

    const bad = await env.post('/license/delete', { license_key: 42 }, owner.auth);
    expect(bad.status).toBe(400);
    expect(bad.body.error.startsWith('license_key: ')).toBe(true);
  });
});

describe('POST /license/delete-bulk', () => {
  it('deletes the keys it can and answers each key once', async () => {
    const [first, second] = await Promise.all([seedLicense(env.deps, subscription), boundLicenseWithCredentials('device-3', 'heidi')]);

    const response = await env.post('/license/delete-bulk', { license_keys: [first.key, 'MISSING-2', second.key, first.key] }, owner.auth);

    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({
      succeeded: [first.key, second.key],
      failed: [{ license_key: 'MISSING-2', error_code: 'LICENSE_NOT_FOUND' }],
    });
    expect(await licenses.get(env.deps.table, first.key, first.team_id)).toBeUndefined();
    expect(await licenses.get(env.deps.table, second.key, second.team_id)).toBeUndefined();
    expect(await getItem(env.deps.table, keys.hwid(owner.app_id, 'device-3'))).toBeUndefined();
  });

  it('answers 400 naming license_keys for an empty list or more than 1000', async () => {
    for (const license_keys of [[], Array.from({ length: 1001 }, (_, i) => `K-${i}`), 'K-1']) {
      const response = await env.post('/license/delete-bulk', { license_keys }, owner.auth);
      expect(response.status).toBe(400);
      expect(response.body.error.startsWith('license_keys: ')).toBe(true);
    }
  });
});
