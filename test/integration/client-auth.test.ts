import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { newId } from '#core/ids';
import { getItem } from '#data/db';
import { keys } from '#data/keys';
import type { License } from '#data/model/license';
import type { Subscription } from '#data/model/subscription';
import { blacklist } from '../support/client';
import { createFakeClock } from '../support/clock';
import { seedLicense, seedSubscription } from '../support/fixtures';
import { createOwner, madeBeforeAll, withOwner, type Owner } from '../support/owners';
import * as apps from '#data/app.repo';
import * as hwidsRepo from '#data/hwid.repo';
import * as licenses from '#data/license.repo';
import * as teams from '#data/team.repo';

// Apps, teams and subscriptions change mid-file: no cache, so each change shows at once.
// The viewer headers are trusted as behind a CloudFront that sets both (test/integration/viewer-headers.test.ts: otherwise).
const clock = createFakeClock();
const { env, owner } = withOwner({ clock, config: { cacheTtlSeconds: 0, trustedViewerHeaders: ['country', 'asn'] } });
const pro = madeBeforeAll(() => seedSubscription(env.deps, owner, { name: 'Pro', level: 2 }));

function auth(body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return env.post('/auth', { app_id: owner.app_id, ...body }, headers);
}

const license = (overrides: Partial<License> = {}) => seedLicense(env.deps, pro, overrides);
const stored = async (key: string) => (await licenses.get(env.deps.table, key, owner.team_id))!;
const failure = (message: string, data?: unknown) => (data === undefined ? { success: false, message } : { success: false, message, data });

describe('POST /auth validation', () => {
  it.each([
    ['no app_id', {}, 'App ID is required'],
    ['an empty app_id', { app_id: '' }, 'App ID is required'],
    ['an app_id that is not a UUID', { app_id: 'my-app', license: 'K' }, 'Invalid App ID format (must be a valid UUID)'],
    ['an app_id that is not a string', { app_id: 42, license: 'K' }, 'Invalid App ID format (must be a valid UUID)'],
    ['neither license nor username', { app_id: newId() }, 'No valid authentication method provided (missing license key or username/password)'],
    ['a username without a password', { app_id: newId(), username: 'alice' }, 'No valid authentication method provided (missing license key or username/password)'],
    ['an HWID that is not a string', { app_id: newId(), license: 'K', hwid: 7 }, 'HWID must be a string of at most 256 characters'],
    ['an HWID over 256 characters', { app_id: newId(), license: 'K', hwid: 'h'.repeat(257) }, 'HWID must be a string of at most 256 characters'],
  ])('answers 400 for %s', async (_case, body, message) => {
    const response = await env.post('/auth', body);
    expect(response.status).toBe(400);
    expect(response.body).toEqual(failure(message));
  });

  it('answers 400 with the documented message for a body that is not JSON', async () => {
    const response = await env.post('/auth', '{"app_id":');
    expect(response.status).toBe(400);
    expect(response.body).toEqual(failure('Invalid JSON in request body'));
  });

  it('checks the App ID before the authentication method', async () => {
    const response = await env.post('/auth', { app_id: 'nope' });
    expect(response.body.message).toBe('Invalid App ID format (must be a valid UUID)');
  });
});

describe('POST /auth failures', () => {
  it('answers INVALID_APP_ID for a well-formed app ID that does not exist', async () => {
    const response = await env.post('/auth', { app_id: newId(), license: 'K' });
    expect(response.status).toBe(403);
    expect(response.body).toEqual(failure('INVALID_APP_ID'));
  });

  it('answers LICENSE_NOT_FOUND for an unknown key and for a key of another application', async () => {
    const other = await createOwner(env.deps);
    const foreign = await seedLicense(env.deps, await seedSubscription(env.deps, other));
    expect((await auth({ license: 'NO-SUCH-KEY' })).body).toEqual(failure('LICENSE_NOT_FOUND'));
    const response = await auth({ license: foreign.key });
    expect(response.status).toBe(403);
    expect(response.body).toEqual(failure('LICENSE_NOT_FOUND'));
  });

  it('answers LICENSE_NOT_FOUND for a key too long to be stored, without a server fault', async () => {
    const response = await auth({ license: 'K'.repeat(5000) });
    expect(response.status).toBe(403);
    expect(response.body).toEqual(failure('LICENSE_NOT_FOUND'));
  });

  it('answers LICENSE_NOT_ACTIVE for a paused license', async () => {
    const paused = await license({ status: 'paused' });
    expect((await auth({ license: paused.key })).body).toEqual(failure('LICENSE_NOT_ACTIVE'));
  });

  it('answers APPLICATION_NOT_ACTIVE for an inactive application', async () => {
    const other = await createOwner(env.deps);
    const key = (await seedLicense(env.deps, await seedSubscription(env.deps, other))).key;
    await apps.update(env.deps.table, other.app_id, { status: 'inactive' });
    const response = await env.post('/auth', { app_id: other.app_id, license: key });
    expect(response.status).toBe(403);
    expect(response.body).toEqual(failure('APPLICATION_NOT_ACTIVE'));
  });

  it('answers TEAM_ERROR when the plan has expired and when the team is gone', async () => {
    const expired = await createOwner(env.deps);
    const expiredKey = (await seedLicense(env.deps, await seedSubscription(env.deps, expired))).key;
    await teams.setPlanExpiry(env.deps.table, expired.team_id, new Date(clock.now().getTime() - 1000).toISOString());
    expect((await env.post('/auth', { app_id: expired.app_id, license: expiredKey })).body).toEqual(failure('TEAM_ERROR'));

    const orphan = await createOwner(env.deps);
    const orphanKey = (await seedLicense(env.deps, await seedSubscription(env.deps, orphan))).key;
    await env.deps.table.doc.send(new DeleteCommand({ TableName: env.deps.table.name, Key: keys.team(orphan.team_id) }));
    expect((await env.post('/auth', { app_id: orphan.app_id, license: orphanKey })).body).toEqual(failure('TEAM_ERROR'));
  });

  it('accepts a team whose plan expires in the future', async () => {
    const paying = await createOwner(env.deps);
    const key = (await seedLicense(env.deps, await seedSubscription(env.deps, paying))).key;
    await teams.setPlanExpiry(env.deps.table, paying.team_id, new Date(clock.now().getTime() + 60_000).toISOString());
    expect((await env.post('/auth', { app_id: paying.app_id, license: key })).body.success).toBe(true);
  });

  it('answers SUBSCRIPTION_ERROR when the subscription is gone and SUBSCRIPTION_NOT_ACTIVE when inactive', async () => {
    const orphan = await license({ subscription_id: newId() });
    expect((await auth({ license: orphan.key })).body).toEqual(failure('SUBSCRIPTION_ERROR'));

    const inactive = await seedSubscription(env.deps, owner, { status: 'inactive' });
    const key = (await seedLicense(env.deps, inactive)).key;
    const response = await auth({ license: key });
    expect(response.status).toBe(403);
    expect(response.body).toEqual(failure('SUBSCRIPTION_NOT_ACTIVE'));
  });

  it('writes nothing on a failed request', async () => {
    const paused = await license({ status: 'paused' });
    await auth({ license: paused.key });
    expect(await stored(paused.key)).toEqual(paused);
  });
});

describe('POST /auth blacklists', () => {
  let listed: Owner;
  let subscription: Subscription;

  beforeAll(async () => {
    listed = await createOwner(env.deps);
    subscription = await seedSubscription(env.deps, listed);
  });

  const authListed = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    env.post('/auth', { app_id: listed.app_id, ...body }, headers);

  it('answers COUNTRY_BLACKLISTED, ASN_BLACKLISTED and HWID_BLACKLISTED from the request’s attributes', async () => {
    await blacklist(env, listed.app_id, 'country', 'KP');
    await blacklist(env, listed.app_id, 'asn', '64500');
    await blacklist(env, listed.app_id, 'hwid', 'banned-device');
    const key = (await seedLicense(env.deps, subscription)).key;

    expect((await authListed({ license: key }, { 'CloudFront-Viewer-Country': 'kp' })).body).toEqual(failure('COUNTRY_BLACKLISTED'));
    expect((await authListed({ license: key }, { 'CloudFront-Viewer-ASN': 'AS64500' })).body).toEqual(failure('ASN_BLACKLISTED'));
    const response = await authListed({ license: key, hwid: 'banned-device' });
    expect(response.status).toBe(403);
    expect(response.body).toEqual(failure('HWID_BLACKLISTED'));
  });

  it('checks country, then ASN, then IP, then HWID', async () => {
    const key = (await seedLicense(env.deps, subscription)).key;
    const all = { 'CloudFront-Viewer-Country': 'KP', 'CloudFront-Viewer-ASN': '64500' };
    expect((await authListed({ license: key, hwid: 'banned-device' }, all)).body.message).toBe('COUNTRY_BLACKLISTED');
    expect((await authListed({ license: key, hwid: 'banned-device' }, { 'CloudFront-Viewer-ASN': '64500' })).body.message).toBe('ASN_BLACKLISTED');
  });

  it('lets a request through when a header is absent or does not parse', async () => {
    const key = (await seedLicense(env.deps, subscription)).key;
    const response = await authListed({ license: key }, { 'CloudFront-Viewer-Country': 'not a country', 'CloudFront-Viewer-ASN': 'AS-x' });
    expect(response.body.success).toBe(true);
  });

  it('answers IP_BLACKLISTED before looking at the license: a blacklisted IP with an unknown key', async () => {
    const ipListed = await createOwner(env.deps);
    await blacklist(env, ipListed.app_id, 'ip', '127.0.0.1');
    const response = await env.post('/auth', { app_id: ipListed.app_id, license: 'NO-SUCH-KEY', hwid: 'banned-device' });
    expect(response.status).toBe(403);
    expect(response.body).toEqual(failure('IP_BLACKLISTED'));
  });

  it('keeps blacklists per application', async () => {
    const key = (await license()).key;
    expect((await auth({ license: key }, { 'CloudFront-Viewer-Country': 'KP' })).body.success).toBe(true);
  });
});

describe('POST /auth processing order', () => {
  it('answers LICENSE_NOT_ACTIVE for a paused license of an inactive app', async () => {
    const other = await createOwner(env.deps);
    const key = (await seedLicense(env.deps, await seedSubscription(env.deps, other), { status: 'paused' })).key;
    await apps.update(env.deps.table, other.app_id, { status: 'inactive' });
    expect((await env.post('/auth', { app_id: other.app_id, license: key })).body).toEqual(failure('LICENSE_NOT_ACTIVE'));
  });

  it('answers LICENSE_NOT_ACTIVE, not LICENSE_EXPIRED, for a paused and expired license', async () => {
    const past = new Date(clock.now().getTime() - 60_000).toISOString();
    const key = (await license({ status: 'paused', first_used_at: past, expires_at: past })).key;
    expect((await auth({ license: key })).body).toEqual(failure('LICENSE_NOT_ACTIVE'));
  });

  it('answers APPLICATION_NOT_ACTIVE before team, subscription and HWID problems', async () => {
    const other = await createOwner(env.deps);
    const inactive = await seedSubscription(env.deps, other, { status: 'inactive' });
    const key = (await seedLicense(env.deps, inactive, { hwid_lock: true })).key;
    await apps.update(env.deps.table, other.app_id, { status: 'inactive' });
    await teams.setPlanExpiry(env.deps.table, other.team_id, new Date(0).toISOString());
    expect((await env.post('/auth', { app_id: other.app_id, license: key })).body).toEqual(failure('APPLICATION_NOT_ACTIVE'));
  });

  it('answers TEAM_ERROR before SUBSCRIPTION_NOT_ACTIVE, and SUBSCRIPTION_NOT_ACTIVE before HWID_NOT_PROVIDED', async () => {
    const other = await createOwner(env.deps);
    const inactive = await seedSubscription(env.deps, other, { status: 'inactive' });
    const key = (await seedLicense(env.deps, inactive, { hwid_lock: true })).key;
    expect((await env.post('/auth', { app_id: other.app_id, license: key })).body).toEqual(failure('SUBSCRIPTION_NOT_ACTIVE'));
    await teams.setPlanExpiry(env.deps.table, other.team_id, new Date(0).toISOString());
    expect((await env.post('/auth', { app_id: other.app_id, license: key })).body).toEqual(failure('TEAM_ERROR'));
  });
});

describe('POST /auth license lifecycle', () => {
  it('activates an unused license: UNUSED code, first_used_at and expires_at set, all 13 fields typed as the client API’s license data', async () => {
    const unused = await license({ initial_duration: 86400 });
    const now = clock.now().toISOString();

    const response = await auth({ license: unused.key });

    expect(response.status).toBe(200);
    expect(response.body.success).toBe(true);
    expect(response.body.message).toBe('LICENSE_VERIFIED_UNUSED_AND_UNLOCKED_KEY');
    expect(response.body.data).toStrictEqual({
      key: unused.key,
      created_at: unused.created_at,
      expires_at: new Date(Date.parse(now) + 86400_000).toISOString(),
      initial_duration: '86400',
      first_used_at: now,
      hwid_lock: false,
      last_hwid_reset_at: null,
      hwid_reset_cooldown: 0,
      hwid_reset_allowed: true,
      username: null,
      last_login: now,
      subscription_level: 2,
      subscription_name: 'Pro',
    });
    expect(await stored(unused.key)).toMatchObject({ first_used_at: now, last_login: now, expires_at: response.body.data.expires_at });
  });

  it('answers a later use with a USED code, moves last_login and keeps first_used_at and expires_at', async () => {
    const key = (await license()).key;
    const first = (await auth({ license: key })).body.data;
    clock.advance(90);

    const response = await auth({ license: key });

    expect(response.body.message).toBe('LICENSE_VERIFIED_USED_AND_UNLOCKED_KEY');
    expect(response.body.data.first_used_at).toBe(first.first_used_at);
    expect(response.body.data.expires_at).toBe(first.expires_at);
    expect(response.body.data.last_login).toBe(clock.now().toISOString());
    expect(Date.parse(response.body.data.last_login) - Date.parse(first.last_login)).toBe(90_000);
    expect((await stored(key)).last_login).toBe(clock.now().toISOString());
  });

  it('expires a 1-second license one second after its first use, and answers its expires_at', async () => {
    const key = (await license({ initial_duration: 1 })).key;
    const activated = await auth({ license: key });
    expect(activated.body.message).toBe('LICENSE_VERIFIED_UNUSED_AND_UNLOCKED_KEY');

    clock.advance(0.5);
    expect((await auth({ license: key })).body.message).toBe('LICENSE_VERIFIED_USED_AND_UNLOCKED_KEY');

    clock.advance(0.5);
    const response = await auth({ license: key });
    expect(response.status).toBe(403);
    expect(response.body).toEqual(failure('LICENSE_EXPIRED', { expires_at: activated.body.data.expires_at }));
  });

  it('never expires an unused license: its clock starts at first use', async () => {
    const key = (await license({ initial_duration: 1 })).key;
    clock.advance(3600);
    expect((await auth({ license: key })).body.message).toBe('LICENSE_VERIFIED_UNUSED_AND_UNLOCKED_KEY');
  });

  it('reports the HWID reset cooldown left and whether a reset is allowed now', async () => {
    const resetAt = new Date(clock.now().getTime() - 600_000).toISOString();
    const key = (await license({ last_hwid_reset_at: resetAt, hwid_reset_interval: 3600 })).key;
    const { data } = (await auth({ license: key })).body;
    expect(data).toMatchObject({ last_hwid_reset_at: resetAt, hwid_reset_cooldown: 3000, hwid_reset_allowed: false });
  });
});

describe('POST /auth HWID lock', () => {
  it('answers HWID_NOT_PROVIDED for a locked license without an HWID', async () => {
    const key = (await license({ hwid_lock: true })).key;
    const response = await auth({ license: key });
    expect(response.status).toBe(403);
    expect(response.body).toEqual(failure('HWID_NOT_PROVIDED'));
    expect((await auth({ license: key, hwid: '' })).body).toEqual(failure('HWID_NOT_PROVIDED'));
  });

  it('binds the first HWID, accepts it again and refuses another with the reset data', async () => {
    const resetAt = new Date(clock.now().getTime() - 60_000).toISOString();
    const key = (await license({ hwid_lock: true, last_hwid_reset_at: resetAt, hwid_reset_interval: 120 })).key;

    const first = await auth({ license: key, hwid: 'device-1' });
    expect(first.body.message).toBe('LICENSE_VERIFIED_UNUSED_AND_LOCKED_KEY');
    expect(first.body.data.hwid_lock).toBe(true);
    expect((await stored(key)).hwid).toBe('device-1');

    expect((await auth({ license: key, hwid: 'device-1' })).body.message).toBe('LICENSE_VERIFIED_USED_AND_LOCKED_KEY');

    const mismatch = await auth({ license: key, hwid: 'device-2' });
    expect(mismatch.status).toBe(403);
    expect(mismatch.body).toEqual(
      failure('HWID_MISMATCH', { hwid_reset_allowed: false, last_hwid_reset_at: resetAt, hwid_reset_cooldown: 60 }),
    );
    expect((await stored(key)).hwid).toBe('device-1');
  });

  it('binds again after the owner cleared the HWID of an item written before seats existed (no hwids list)', async () => {
    const key = (await license({ hwid_lock: true })).key;
    await auth({ license: key, hwid: 'old-device' });
    await env.deps.table.doc.send(
      new UpdateCommand({
        TableName: env.deps.table.name,
        Key: keys.license(key),
        UpdateExpression: 'SET hwid = :none REMOVE hwids, max_devices',
        ExpressionAttributeValues: { ':none': null },
      }),
    );

    const response = await auth({ license: key, hwid: 'new-device' });

    expect(response.body.message).toBe('LICENSE_VERIFIED_USED_AND_LOCKED_KEY');
    expect((await stored(key)).hwid).toBe('new-device');
    expect((await auth({ license: key, hwid: 'old-device' })).body.message).toBe('HWID_MISMATCH');
  });

  it('ignores the HWID of an unlocked license: nothing is bound', async () => {
    const key = (await license()).key;
    await auth({ license: key, hwid: 'device-1' });
    expect((await auth({ license: key, hwid: 'device-2' })).body.message).toBe('LICENSE_VERIFIED_USED_AND_UNLOCKED_KEY');
    expect((await stored(key)).hwid).toBeNull();
  });

  it('lets one HWID hold one license of a single-key-per-HWID subscription', async () => {
    const single = await seedSubscription(env.deps, owner, { single_key_per_hwid: true });
    const first = await seedLicense(env.deps, single, { hwid_lock: true });
    const second = await seedLicense(env.deps, single, { hwid_lock: true });
    expect((await auth({ license: first.key, hwid: 'shared-device' })).body.success).toBe(true);

    const response = await auth({ license: second.key, hwid: 'shared-device' });

    expect(response.status).toBe(403);
    expect(response.body).toEqual(failure('DEVICE_ALREADY_REGISTERED_WITH_OTHER_LICENSE'));
    expect((await stored(second.key)).hwid).toBeNull();
    expect(await hwidsRepo.get(env.deps.table, owner.app_id, 'shared-device')).toMatchObject({ license_key: first.key });
    expect((await auth({ license: second.key, hwid: 'own-device' })).body.success).toBe(true);
  });

  it('lets licenses of an ordinary subscription share a device', async () => {
    const first = await license({ hwid_lock: true });
    const second = await license({ hwid_lock: true });
    expect((await auth({ license: first.key, hwid: 'family-pc' })).body.success).toBe(true);
    expect((await auth({ license: second.key, hwid: 'family-pc' })).body.success).toBe(true);
    expect(await hwidsRepo.get(env.deps.table, owner.app_id, 'family-pc')).toBeUndefined();
  });
});

describe('POST /auth under concurrency', () => {
  it.each([
    ['an ordinary subscription', false],
    ['a single-key-per-HWID subscription', true],
  ])('binds exactly one of 10 concurrent first activations with different HWIDs (%s)', async (_case, singleKey) => {
    const subscription = await seedSubscription(env.deps, owner, { single_key_per_hwid: singleKey });
    const key = (await seedLicense(env.deps, subscription, { hwid_lock: true })).key;
    const hwids = Array.from({ length: 10 }, (_, index) => `racer-${singleKey}-${index}`);

    const responses = await Promise.all(hwids.map((hwid) => auth({ license: key, hwid })));

    const winners = responses.filter((response) => response.status === 200);
    expect(winners).toHaveLength(1);
    expect(responses.filter((response) => response.body.message === 'HWID_MISMATCH')).toHaveLength(9);
    const winnerHwid = hwids[responses.indexOf(winners[0]!)];
    expect((await stored(key)).hwid).toBe(winnerHwid);
    if (singleKey) expect(await hwidsRepo.get(env.deps.table, owner.app_id, winnerHwid!)).toMatchObject({ license_key: key });
  });

  it('binds a device to exactly one of two licenses racing for it under single-key-per-HWID', async () => {
    const single = await seedSubscription(env.deps, owner, { single_key_per_hwid: true });
    const [first, second] = await Promise.all([
      seedLicense(env.deps, single, { hwid_lock: true }),
      seedLicense(env.deps, single, { hwid_lock: true }),
    ]);

    const responses = await Promise.all([first, second].map((racer) => auth({ license: racer.key, hwid: 'contested-device' })));

    expect(responses.map((response) => response.body.message).sort()).toEqual([
      'DEVICE_ALREADY_REGISTERED_WITH_OTHER_LICENSE',
      'LICENSE_VERIFIED_UNUSED_AND_LOCKED_KEY',
    ]);
    const winner = responses[0]!.status === 200 ? first! : second!;
    const loser = winner === first ? second! : first!;
    expect(await hwidsRepo.get(env.deps.table, owner.app_id, 'contested-device')).toMatchObject({ license_key: winner.key });
    expect((await stored(winner.key)).hwid).toBe('contested-device');
    expect((await stored(loser.key)).hwid).toBeNull();
  });

  it('answers one of 10 concurrent first uses of an unlocked license as UNUSED and the rest as USED', async () => {
    const key = (await license()).key;

    const responses = await Promise.all(Array.from({ length: 10 }, () => auth({ license: key })));

    expect(responses.every((response) => response.status === 200)).toBe(true);
    const messages = responses.map((response) => response.body.message);
    expect(messages.filter((message) => message === 'LICENSE_VERIFIED_UNUSED_AND_UNLOCKED_KEY')).toHaveLength(1);
    expect(messages.filter((message) => message === 'LICENSE_VERIFIED_USED_AND_UNLOCKED_KEY')).toHaveLength(9);
    const firstUse = (await stored(key)).first_used_at;
    expect(new Set(responses.map((response) => response.body.data.first_used_at))).toEqual(new Set([firstUse]));
  });
});

describe('POST /auth over HTTP', () => {
  it('puts the CORS origin header on successes and failures alike', async () => {
    const key = (await license()).key;
    for (const body of [{ license: key }, { license: 'NO-SUCH-KEY' }, { app_id: 'bad' }]) {
      const response = await auth(body);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
    }
  });

  it('serves a Keycrate-style SDK call unchanged: JSON body with app_id, license and hwid', async () => {
    const key = (await license({ hwid_lock: true })).key;
    const response = await fetch(`${env.server.url}/auth`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ app_id: owner.app_id, license: key, hwid: 'sdk-device' }),
    });
    const { success, message, data } = (await response.json()) as { success: boolean; message: string; data: Record<string, unknown> };
    expect(response.status).toBe(200);
    expect(success).toBe(true);
    expect(message).toBe('LICENSE_VERIFIED_UNUSED_AND_LOCKED_KEY');
    expect(data.key).toBe(key);
  });

  it('reads a stored license back intact after activation', async () => {
    const unused = await license({ hwid_lock: true, tags: ['beta'], metadata: { user: 7 } });
    await auth({ license: unused.key, hwid: 'kept' });
    const item = await getItem(env.deps.table, keys.license(unused.key));
    expect(item).toMatchObject({ tags: ['beta'], metadata: { user: 7 }, hwid: 'kept', status: 'active' });
  });
});
