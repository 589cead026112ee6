import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { decodeJwt } from 'jose';
import { keys } from '#data/keys';
import type { Subscription } from '#data/model/subscription';
import { createFakeClock } from '../support/clock';
import { seedLicense, seedSubscription } from '../support/fixtures';
import { checkInvariants, scanAll } from '../support/invariants';
import { madeBeforeAll, withOwner } from '../support/owners';
import * as hwids from '#data/hwid.repo';
import * as licenses from '#data/license.repo';

/**
 * Floating seats (docs/licensing-models.md, "Floating seats") through the local server against
 * DynamoDB Local: requests sent at once, then every stored item checked. The
 * clock is fake, so a 60 s lease ends without waiting.
 */
const clock = createFakeClock(new Date('2026-06-01T10:00:00.000Z'));
const { env, owner } = withOwner({ clock, config: { cacheTtlSeconds: 0 } });
const plain = madeBeforeAll(() => seedSubscription(env.deps, owner));
const singleKey = madeBeforeAll(() => seedSubscription(env.deps, owner, { single_key_per_hwid: true }));

const auth = (body: Record<string, unknown>) => env.post('/auth', { app_id: owner.app_id, ...body });
const release = (body: Record<string, unknown>) => env.post('/release', { app_id: owner.app_id, ...body });
const manage = (path: string, body: Record<string, unknown>) => env.post(path, body, owner.auth);
const floating = (subscription: Subscription, overrides: Parameters<typeof seedLicense>[2] = {}) =>
  seedLicense(env.deps, subscription, { hwid_lock: true, lease_seconds: 60, ...overrides });
const stored = async (key: string) => (await licenses.get(env.deps.table, key, owner.team_id))!;
const liveLeases = async (key: string) => {
  const license = await stored(key);
  return license.hwids.filter((hwid) => license.leases[hwid] && Date.parse(license.leases[hwid]!.expires_at) > clock.now().getTime());
};
const at = (seconds: number) => new Date(clock.now().getTime() + seconds * 1000).toISOString();

describe('floating seats under races', () => {
  it('20 concurrent /auth from 20 new devices on a 3-seat floating license: exactly 3 succeed and 3 leases are stored', async () => {
    const { key } = await floating(singleKey, { max_devices: 3, lease_seconds: 3600 });
    const hwids = Array.from({ length: 20 }, (_, index) => `float-${index}`);

    const responses = await Promise.all(hwids.map((hwid) => auth({ license: key, hwid })));

    const winners = hwids.filter((_, index) => responses[index]!.status === 200);
    expect(winners).toHaveLength(3);
    expect(responses.filter((response) => response.status === 403).map((response) => response.body.message)).toEqual(Array(17).fill('SEATS_EXHAUSTED'));
    const license = await stored(key);
    expect([...license.hwids].sort()).toEqual([...winners].sort());
    expect(Object.keys(license.leases).sort()).toEqual([...winners].sort());
    expect(checkInvariants(await scanAll(env.deps.table))).toEqual([]);
  });

  it('half of the seat holders release while new devices ask: never more than max_devices live leases', async () => {
    const { key } = await floating(singleKey, { max_devices: 4, lease_seconds: 3600 });
    const holders = ['hold-0', 'hold-1', 'hold-2', 'hold-3'];
    for (const hwid of holders) expect((await auth({ license: key, hwid })).status).toBe(200);
    const newcomers = Array.from({ length: 10 }, (_, index) => `new-${index}`);
    let watching = true;
    const seen: number[] = [];
    const watcher = (async () => {
      while (watching) seen.push((await liveLeases(key)).length);
    })();

    const [releases, takes] = await Promise.all([
      Promise.all(holders.slice(0, 2).map((hwid) => release({ license: key, hwid }))),
      Promise.all(newcomers.map((hwid) => auth({ license: key, hwid }))),
    ]);
    watching = false;
    await watcher;

    expect(releases.map((response) => response.body.message)).toEqual(['SEAT_RELEASED', 'SEAT_RELEASED']);
    const taken = newcomers.filter((_, index) => takes[index]!.status === 200);
    for (const response of takes) if (response.status !== 200) expect(response.body.message).toBe('SEATS_EXHAUSTED');
    expect(taken.length).toBeLessThanOrEqual(2);
    expect(Math.max(...seen)).toBeLessThanOrEqual(4);
    const live = await liveLeases(key);
    expect(live.length).toBeLessThanOrEqual(4);
    expect([...live].sort()).toEqual([...holders.slice(2), ...taken].sort());
    expect(checkInvariants(await scanAll(env.deps.table))).toEqual([]);
  });
});

describe('leases in time', () => {
  it('a heartbeat renews the lease; a 60 s lease that ended gives its seat to a new device, with the ended one dropped', async () => {
    const { key } = await floating(plain, { max_devices: 1 });
    const first = await auth({ license: key, hwid: 'pc-a' });
    expect(first.body.data).toMatchObject({ hwids: ['pc-a'], max_devices: 1, lease_expires_at: at(60) });
    clock.advance(30);
    expect((await auth({ license: key, hwid: 'pc-a' })).body.data.lease_expires_at).toBe(at(60));
    const exhausted = await auth({ license: key, hwid: 'pc-b' });
    expect(exhausted.status).toBe(403);
    expect(exhausted.body).toEqual({ success: false, message: 'SEATS_EXHAUSTED', data: { max_devices: 1, next_seat_at: at(60) } });

    clock.advance(61);
    const taken = await auth({ license: key, hwid: 'pc-b' });

    expect(taken.status).toBe(200);
    expect(taken.body.data).toMatchObject({ hwids: ['pc-b'], lease_expires_at: at(60) });
    const license = await stored(key);
    expect(license.hwids).toEqual(['pc-b']);
    expect(Object.keys(license.leases)).toEqual(['pc-b']);
    expect((await auth({ license: key, hwid: 'pc-a' })).body.message).toBe('SEATS_EXHAUSTED');
  });

  it('an ended lease holds no single_key_per_hwid claim: another license of that tier binds the HWID, and the first cannot renew it', async () => {
    const first = await floating(singleKey, { max_devices: 2 });
    const second = await seedLicense(env.deps, singleKey, { hwid_lock: true });
    expect((await auth({ license: first.key, hwid: 'roaming-pc' })).status).toBe(200);
    expect((await auth({ license: second.key, hwid: 'roaming-pc' })).body.message).toBe('DEVICE_ALREADY_REGISTERED_WITH_OTHER_LICENSE');

    clock.advance(61);
    const bound = await auth({ license: second.key, hwid: 'roaming-pc' });

    expect(bound.status).toBe(200);
    expect(await hwids.get(env.deps.table, owner.app_id, 'roaming-pc')).toMatchObject({ license_key: second.key });
    expect((await auth({ license: first.key, hwid: 'roaming-pc' })).body.message).toBe('DEVICE_ALREADY_REGISTERED_WITH_OTHER_LICENSE');
    expect((await manage('/license/get', { license_key: first.key })).body.data.leases).toEqual([]);
    expect(checkInvariants(await scanAll(env.deps.table))).toEqual([]);
  });
});

describe('seats of a floating license', () => {
  it('count only live leases when the owner lowers max_devices, and the next seat taken drops the ended ones', async () => {
    const { key } = await floating(plain, { max_devices: 3 });
    for (const hwid of ['old-a', 'old-b']) expect((await auth({ license: key, hwid })).status).toBe(200);
    expect((await manage('/hwid/set-max-devices', { license_key: key, max_devices: 1 })).body.error_code).toBe('INVALID_INPUT');
    clock.advance(61);

    expect((await manage('/hwid/set-max-devices', { license_key: key, max_devices: 1 })).body.data).toMatchObject({ max_devices: 1, hwids: [], leases: [] });
    expect((await auth({ license: key, hwid: 'new-c' })).status).toBe(200);
    expect((await auth({ license: key, hwid: 'new-d' })).body.message).toBe('SEATS_EXHAUSTED');

    expect((await stored(key)).hwids).toEqual(['new-c']);
    expect(checkInvariants(await scanAll(env.deps.table))).toEqual([]);
  });
});

describe('borrowing', () => {
  it('a borrowed seat carries a token ending with the lease, cannot be released by the client, and is freed by the owner', async () => {
    const { key } = await floating(singleKey, { max_devices: 1, lease_seconds: 3600 });
    const borrowed = await auth({ license: key, hwid: 'laptop', borrow_seconds: 86400 });
    expect(borrowed.status).toBe(200);
    const end = borrowed.body.data.lease_expires_at;
    expect(end).toBe(at(86400));
    const claims = decodeJwt(borrowed.body.data.offline_token);
    expect(claims.exp).toBe(Date.parse(end) / 1000);
    expect(claims.borrowed).toBe(true);
    expect((await manage('/license/get', { license_key: key })).body.data.leases).toEqual([{ hwid: 'laptop', expires_at: end, borrowed: true }]);

    // A heartbeat does not shorten the borrow.
    expect((await auth({ license: key, hwid: 'laptop' })).body.data.lease_expires_at).toBe(end);
    const refused = await release({ license: key, hwid: 'laptop' });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ success: false, message: 'LEASE_BORROWED', data: { lease_expires_at: end } });
    expect((await env.post('/reset-hwid', { app_id: owner.app_id, license: key, hwid: 'laptop' })).body.message).toBe('LEASE_BORROWED');
    expect((await auth({ license: key, hwid: 'desk' })).body.message).toBe('SEATS_EXHAUSTED');

    expect((await manage('/hwid/remove', { license_key: key, hwid: 'laptop' })).status).toBe(200);
    expect((await auth({ license: key, hwid: 'desk' })).status).toBe(200);
    expect(await hwids.get(env.deps.table, owner.app_id, 'laptop')).toBeUndefined();
    expect(checkInvariants(await scanAll(env.deps.table))).toEqual([]);
  });

  describe('a 1-seat license with devices A, B and C taking turns never has two valid offline tokens', () => {
    /** Every offline token handed out, and how many are valid now (each lasts until its `exp`). */
    const handedOut = () => {
      const exps: number[] = [];
      return {
        keep: (answer: { body: { data?: { offline_token?: string } } }) => {
          const token = answer.body.data?.offline_token;
          if (token !== undefined) exps.push(decodeJwt(token).exp!);
        },
        valid: () => exps.filter((exp) => exp > clock.now().getTime() / 1000).length,
      };
    };

    it('when each asks /auth for an offline token, sends a heartbeat and releases: a token comes only with a borrow', async () => {
      const { key } = await floating(plain, { max_devices: 1, lease_seconds: 3600 });
      const tokens = handedOut();
      for (const hwid of ['device-a', 'device-b', 'device-c']) {
        const asked = await auth({ license: key, hwid, offline_token: true });
        expect(asked.status).toBe(200);
        expect(asked.body.data).not.toHaveProperty('offline_token');
        tokens.keep(asked);
        tokens.keep(await auth({ license: key, hwid, offline_token: true }));
        expect((await release({ license: key, hwid })).body.message).toBe('SEAT_RELEASED');
        expect(tokens.valid()).toBeLessThanOrEqual(1);
      }
    });

    it('when each borrows, sends a heartbeat and tries to release: the heartbeat keeps the borrow, which holds the seat until its token ends', async () => {
      const { key } = await floating(plain, { max_devices: 1, lease_seconds: 3600 });
      const tokens = handedOut();
      for (const hwid of ['device-a', 'device-b', 'device-c']) {
        const borrowed = await auth({ license: key, hwid, borrow_seconds: 600 });
        expect(borrowed.status).toBe(200);
        tokens.keep(borrowed);
        const end = borrowed.body.data.lease_expires_at;
        expect((await auth({ license: key, hwid })).body.data.lease_expires_at).toBe(end);
        expect((await manage('/license/get', { license_key: key })).body.data.leases).toEqual([{ hwid, expires_at: end, borrowed: true }]);
        expect((await release({ license: key, hwid })).body).toEqual({ success: false, message: 'LEASE_BORROWED', data: { lease_expires_at: end } });
        for (const other of ['device-a', 'device-b', 'device-c'].filter((name) => name !== hwid)) {
          expect((await auth({ license: key, hwid: other, borrow_seconds: 600 })).body.message).toBe('SEATS_EXHAUSTED');
        }
        expect(tokens.valid()).toBe(1);
        clock.advance(600);
        expect(tokens.valid()).toBe(0);
      }
    });
  });

  it('a borrow ends no later than the license, and is refused beyond the application limit or on a license that is not floating', async () => {
    const { key } = await floating(plain, { initial_duration: 3600 });
    const borrowed = await auth({ license: key, hwid: 'short', borrow_seconds: 7200 });
    expect(borrowed.body.data.lease_expires_at).toBe(borrowed.body.data.expires_at.replace(/\.\d{3}Z$/, '.000Z'));
    expect((await auth({ license: key, hwid: 'short', borrow_seconds: 604801 })).body).toEqual({ success: false, message: 'Invalid borrow_seconds' });
    await manage('/app/settings', { app_id: owner.app_id, max_borrow_seconds: 600 });
    expect((await auth({ license: key, hwid: 'short', borrow_seconds: 601 })).body.message).toBe('Invalid borrow_seconds');
    await manage('/app/settings', { app_id: owner.app_id, max_borrow_seconds: 604800 });
    const locked = await seedLicense(env.deps, plain, { hwid_lock: true });
    expect((await auth({ license: locked.key, hwid: 'x', borrow_seconds: 600 })).body.message).toBe('LICENSE_NOT_FLOATING');
  });
});

describe('HWIDs named like what every object inherits', () => {
  const inherited = ['constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__', 'isPrototypeOf'];
  const leasedDevices = async (key: string) => (await manage('/license/get', { license_key: key })).body.data.leases.map((lease: { hwid: string }) => lease.hwid);

  it.each(inherited)('%s takes, renews, gives up and loses a seat like any other HWID, as the first seat and as a later one', async (hwid) => {
    const first = await floating(singleKey, { max_devices: 2 });
    expect((await auth({ license: first.key, hwid })).body.data).toMatchObject({ hwids: [hwid], lease_expires_at: at(60) });
    expect((await auth({ license: first.key, hwid: 'other' })).status).toBe(200);
    clock.advance(10);
    expect((await auth({ license: first.key, hwid })).body.data.lease_expires_at).toBe(at(60));
    expect((await auth({ license: first.key, hwid: 'third' })).body.message).toBe('SEATS_EXHAUSTED');
    expect(await leasedDevices(first.key)).toEqual([hwid, 'other']);
    expect((await release({ license: first.key, hwid })).body.message).toBe('SEAT_RELEASED');
    expect(await leasedDevices(first.key)).toEqual(['other']);

    const later = await floating(singleKey, { max_devices: 1 });
    expect((await auth({ license: later.key, hwid: 'before' })).status).toBe(200);
    clock.advance(61);
    expect((await auth({ license: later.key, hwid })).body.data).toMatchObject({ hwids: [hwid], lease_expires_at: at(60) });
    clock.advance(61);
    // The next device drops the ended lease by name, as it dropped 'before'.
    expect((await auth({ license: later.key, hwid: 'after' })).body.data.hwids).toEqual(['after']);
    expect((await stored(later.key)).leases).toEqual({ after: { expires_at: at(60), borrowed: false } });
    expect(checkInvariants(await scanAll(env.deps.table))).toEqual([]);
  });

  it.each(inherited)('%s keeps its lease through /hwid/set-lease off and on, and is removed by the owner', async (hwid) => {
    const { key } = await floating(plain, { max_devices: 2 });
    expect((await auth({ license: key, hwid })).status).toBe(200);
    expect((await manage('/hwid/set-lease', { license_key: key, lease_seconds: null })).body.data).toMatchObject({ hwids: [hwid] });
    expect((await manage('/hwid/set-lease', { license_key: key, lease_seconds: 120 })).body.data.leases).toEqual([{ hwid, expires_at: at(120), borrowed: false }]);
    expect(await stored(key)).toMatchObject({ hwids: [hwid], leases: { [hwid]: { expires_at: at(120), borrowed: false } } });
    expect((await manage('/hwid/remove', { license_key: key, hwid })).body.data).toMatchObject({ hwids: [], leases: [] });
  });

  it('refuses the HWID __proto__ with 400 on every client route and on /hwid/edit and /hwid/remove, writing nothing', async () => {
    const { key } = await floating(singleKey, { max_devices: 2 });
    expect((await auth({ license: key, hwid: 'seated' })).status).toBe(200);
    const before = await scanAll(env.deps.table);
    for (const path of ['/auth', '/release', '/reset-hwid', '/usage']) {
      const answer = await env.post(path, { app_id: owner.app_id, license: key, hwid: '__proto__', counter: 'exports' });
      expect({ path, status: answer.status, body: answer.body }).toEqual({ path, status: 400, body: { success: false, message: 'HWID must not be "__proto__"' } });
    }
    for (const path of ['/hwid/edit', '/hwid/remove']) {
      expect((await manage(path, { license_key: key, hwid: '__proto__' })).body).toEqual({ error: 'hwid: must not be "__proto__"', error_code: 'INVALID_INPUT' });
    }
    expect(await scanAll(env.deps.table)).toEqual(before);
  });

  it('a license holding a __proto__ lease from before the rule is mended by /hwid/edit with null', async () => {
    const license = await floating(plain, { max_devices: 3, lease_seconds: 600 });
    expect((await auth({ license: license.key, hwid: 'a' })).status).toBe(200);
    // What a later seat taken as __proto__ left: written by its path, so stored, but lost on every read.
    await env.deps.table.doc.send(
      new UpdateCommand({
        TableName: env.config.tableName,
        Key: keys.licenseOf(license),
        UpdateExpression: 'SET leases.#hwid = :lease, hwids = list_append(hwids, :hwids)',
        ExpressionAttributeNames: { '#hwid': '__proto__' },
        ExpressionAttributeValues: { ':lease': Date.parse(at(600)), ':hwids': ['__proto__'] },
      }),
    );

    expect((await manage('/hwid/edit', { license_key: license.key, hwid: null })).body.data).toMatchObject({ hwids: [], leases: [] });
    expect((await auth({ license: license.key, hwid: 'b' })).body.data.hwids).toEqual(['b']);
    // Read without the document client, which would not show a __proto__ entry either way.
    const { Item } = await env.client.send(new GetItemCommand({ TableName: env.config.tableName, Key: marshall(keys.licenseOf(license)), ConsistentRead: true }));
    expect(Object.keys(Item!.leases!.M!)).toEqual(['b']);
  });
});

describe('/hwid/set-lease and the license record', () => {
  it('turns leasing on for bound devices, says when hwid_lock is off, and turns it off keeping live leases as bindings', async () => {
    const { key } = await seedLicense(env.deps, singleKey, { hwid_lock: true, max_devices: 3 });
    await auth({ license: key, hwid: 'kept' });
    await auth({ license: key, hwid: 'lapsing' });

    const on = await manage('/hwid/set-lease', { license_key: key, lease_seconds: 120 });
    expect(on.body.data).toMatchObject({
      lease_seconds: 120,
      floating: true,
      leases: [
        { hwid: 'kept', expires_at: at(120), borrowed: false },
        { hwid: 'lapsing', expires_at: at(120), borrowed: false },
      ],
    });
    clock.advance(100);
    await auth({ license: key, hwid: 'kept' });
    clock.advance(30);
    const off = await manage('/hwid/set-lease', { license_key: key, lease_seconds: null });
    expect(off.status).toBe(200);
    expect(off.body.data).toMatchObject({ hwid: 'kept', hwids: ['kept'] });
    expect(off.body.data).not.toHaveProperty('leases');
    expect(await hwids.get(env.deps.table, owner.app_id, 'lapsing')).toBeUndefined();
    expect((await auth({ license: key, hwid: 'kept' })).body.data).not.toHaveProperty('lease_expires_at');

    await manage('/hwid/set-lease', { license_key: key, lease_seconds: 60 });
    const unlocked = await manage('/hwid/toggle-lock', { license_key: key, hwid_lock: false });
    expect(unlocked.body.data).toMatchObject({ lease_seconds: 60, floating: false });
    expect(checkInvariants(await scanAll(env.deps.table))).toEqual([]);
  });

  it('refuses bad lease_seconds with INVALID_INPUT and writes nothing', async () => {
    const { key } = await seedLicense(env.deps, plain, { hwid_lock: true });
    for (const lease_seconds of [59, 2_592_001, 1.5, '60', true, undefined]) {
      const answer = await manage('/hwid/set-lease', { license_key: key, lease_seconds });
      expect(answer.status).toBe(400);
      expect(answer.body.error_code).toBe('INVALID_INPUT');
    }
    const create = { app_id: owner.app_id, subscription_id: plain.subscription_id, duration_unit: 'days', duration_value: 1 };
    expect((await manage('/license/create', { ...create, lease_seconds: 30 })).body.error_code).toBe('INVALID_INPUT');
    expect((await manage('/license/create-bulk', { ...create, key_amount: 2, lease_seconds: 'x' })).body.error_code).toBe('INVALID_INPUT');
    expect((await manage('/app/settings', { app_id: owner.app_id, max_borrow_seconds: 59 })).body.error_code).toBe('INVALID_INPUT');
    expect(await stored(key)).toMatchObject({ lease_seconds: null, leases: {} });
    const made = await manage('/license/create', { ...create, hwid_lock: true, lease_seconds: 60, max_devices: 5 });
    expect(made.body.data).toMatchObject({ lease_seconds: 60, floating: true, leases: [], max_devices: 5 });
    const many = await manage('/license/create-bulk', { ...create, key_amount: 3, hwid_lock: true, lease_seconds: 120, max_devices: 2 });
    expect(many.body.data.map((license: { lease_seconds: number; leases: unknown[] }) => [license.lease_seconds, license.leases])).toEqual(Array(3).fill([120, []]));
  });
});
