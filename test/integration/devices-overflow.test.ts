import type { Subscription } from '#data/model/subscription';
import { awsError, injectFault } from '../support/dynamo-faults';
import { startTestServer, type TestServer } from '../support/env';
import { seedLicense, seedSubscription } from '../support/fixtures';
import { checkInvariants, scanAll } from '../support/invariants';
import { createOwner, type Owner } from '../support/owners';
import * as licenses from '#data/license.repo';
import { timeFor } from '../support/time';

// A license with 100 seats under single_key_per_hwid has 100 HWID index items:
// with the license itself (and its username) that is more than one
// transaction's 100 items, which a reset, a delete or a move must not turn into a 500.
let env: TestServer;
let owner: Owner;
let plain: Subscription;
let singleKey: Subscription;
let failOverflowDeletes = false;

beforeAll(async () => {
  env = await startTestServer({ config: { cacheTtlSeconds: 0 } });
  owner = await createOwner(env.deps);
  plain = await seedSubscription(env.deps, owner);
  singleKey = await seedSubscription(env.deps, owner, { single_key_per_hwid: true });
  injectFault(env.client, 'DeleteItemCommand', () => (failOverflowDeletes ? awsError('InternalServerError') : undefined));
});
afterAll(() => env.close());

const auth = (body: Record<string, unknown>) => env.post('/auth', { app_id: owner.app_id, ...body });
const devices = (prefix: string) => Array.from({ length: 100 }, (_, index) => `${prefix}-${index}`);
/** The requests and reads of `fullLicense`: a license made and 100 activations, one after another. */
const oneFullLicense = 101;

async function fullLicense(subscription: Subscription, prefix: string): Promise<string> {
  const { key } = await seedLicense(env.deps, subscription, { hwid_lock: true, max_devices: 100 });
  for (const hwid of devices(prefix)) expect((await auth({ license: key, hwid })).status).toBe(200);
  return key;
}

const indexItemsOf = async (key: string) =>
  (await scanAll(env.deps.table)).filter((item) => String(item.sk).startsWith('HWID#') && item.app_id === owner.app_id && item.license_key === key);

describe('a license with 100 devices', () => {
  it('resets all of them in one request, and every device can be bound elsewhere', async () => {
    const key = await fullLicense(singleKey, 'reset');
    expect(await indexItemsOf(key)).toHaveLength(100);

    const reset = await env.post('/reset-hwid', { app_id: owner.app_id, license: key });

    expect(reset.status).toBe(200);
    expect(reset.body.message).toBe('HWID_RESET');
    expect(await indexItemsOf(key)).toEqual([]);
    expect(checkInvariants(await scanAll(env.deps.table))).toEqual([]);
    const other = await seedLicense(env.deps, singleKey, { hwid_lock: true });
    expect((await auth({ license: other.key, hwid: 'reset-99' })).body.message).toBe('LICENSE_VERIFIED_UNUSED_AND_LOCKED_KEY');
  }, timeFor(oneFullLicense + 5));

  it('is deleted with every index item it holds', async () => {
    const key = await fullLicense(singleKey, 'deleted');

    const deleted = await env.post('/license/delete', { license_key: key }, owner.auth);

    expect(deleted.status).toBe(200);
    expect(await indexItemsOf(key)).toEqual([]);
    expect(checkInvariants(await scanAll(env.deps.table))).toEqual([]);
  }, timeFor(oneFullLicense + 3));

  it('cannot move onto a single_key_per_hwid subscription in one change: a 400 naming subscription_id, nothing changed', async () => {
    const key = await fullLicense(plain, 'moved');

    const moved = await env.post('/license/update-subscription', { license_key: key, subscription_id: singleKey.subscription_id }, owner.auth);

    expect(moved.status).toBe(400);
    expect(moved.body.error_code).toBe('INVALID_INPUT');
    expect(moved.body.error).toMatch(/^subscription_id/);
    expect((await licenses.get(env.deps.table, key, owner.team_id))?.subscription_id).toBe(plain.subscription_id);
  }, timeFor(oneFullLicense + 2));

  it('leaves no device blocked when the deletes after a reset fail: the next claim, by /auth or /hwid/edit, removes what is left', async () => {
    const strand = async (prefix: string) => {
      const key = await fullLicense(singleKey, prefix);
      failOverflowDeletes = true;
      const reset = await env.post('/reset-hwid', { app_id: owner.app_id, license: key });
      failOverflowDeletes = false;
      expect(reset.body.message).toBe('HWID_RESET');
      const [left, ...more] = (await indexItemsOf(key)).map((item) => String(item.hwid));
      expect(more).toEqual([]);
      return left!;
    };
    const forAuth = await strand('stranded-a');
    const forEdit = await strand('stranded-b');
    expect(checkInvariants(await scanAll(env.deps.table))).toHaveLength(2);

    const byAuth = await seedLicense(env.deps, singleKey, { hwid_lock: true });
    const byEdit = await seedLicense(env.deps, singleKey);
    expect((await auth({ license: byAuth.key, hwid: forAuth })).body.message).toBe('LICENSE_VERIFIED_UNUSED_AND_LOCKED_KEY');
    const edited = await env.post('/hwid/edit', { license_key: byEdit.key, hwid: forEdit }, owner.auth);
    expect(edited.body).toMatchObject({ success: true, data: { hwid: forEdit } });
    expect(checkInvariants(await scanAll(env.deps.table))).toEqual([]);

    // A device another license really holds stays refused, on both paths.
    const third = await seedLicense(env.deps, singleKey, { hwid_lock: true });
    expect((await auth({ license: third.key, hwid: forEdit })).body.message).toBe('DEVICE_ALREADY_REGISTERED_WITH_OTHER_LICENSE');
    expect((await env.post('/hwid/edit', { license_key: third.key, hwid: forAuth }, owner.auth)).body.error_code).toBe('HWID_IN_USE');
  }, timeFor(2 * oneFullLicense + 15));
});
