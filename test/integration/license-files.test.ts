import { hkdfSync } from 'node:crypto';
import { compactDecrypt, compactVerify, decodeProtectedHeader, importJWK, type JWK } from 'jose';
import type { Subscription } from '#data/model/subscription';
import { createFakeClock } from '../support/clock';
import { blacklist } from '../support/client';
import { seedLicense, seedSubscription } from '../support/fixtures';
import { checkInvariants, scanAll } from '../support/invariants';
import { madeBeforeAll, withOwner } from '../support/owners';
import * as licenses from '#data/license.repo';

/**
 * License files (docs/client-api.md, "POST /license-file" and "Air-gapped activation") through
 * the local server against DynamoDB Local: what a file holds against what /auth answers, every
 * 400 and 403, returns under the reset rules, and races of real requests.
 */
const clock = createFakeClock(new Date('2026-08-01T09:00:00.000Z'));
const { env, owner } = withOwner({ clock, config: { cacheTtlSeconds: 0 } });
const plain = madeBeforeAll(() => seedSubscription(env.deps, owner, { name: 'Pro', level: 2, features: ['export.pdf'] }));
const singleKey = madeBeforeAll(() => seedSubscription(env.deps, owner, { single_key_per_hwid: true }));
const publicKey = madeBeforeAll(async () => ({ jwk: (await env.post('/app/signing-key', { app_id: owner.app_id }, owner.auth)).body.data.jwk as JWK }));

const day = 86400;
const nowSeconds = () => Math.floor(clock.now().getTime() / 1000);
const at = (seconds: number) => new Date(clock.now().getTime() + seconds * 1000).toISOString();
const year = (subscription: Subscription, overrides: Parameters<typeof seedLicense>[2] = {}) =>
  seedLicense(env.deps, subscription, { hwid_lock: true, initial_duration: 365 * day, ...overrides });
const licenseFile = (body: Record<string, unknown>, headers: Record<string, string> = {}) => env.post('/license-file', { app_id: owner.app_id, ...body }, headers);
const returnFile = (body: unknown) => env.post('/license-file/return', body);
const auth = (body: Record<string, unknown>) => env.post('/auth', { app_id: owner.app_id, ...body });
const manage = (path: string, body: Record<string, unknown>) => env.post(path, body, owner.auth);
const stored = async (key: string) => (await licenses.get(env.deps.table, key, owner.team_id))!;
const code = (prefix: 'lfr1.' | 'lfx1.', fields: Record<string, unknown>) => `${prefix}${Buffer.from(JSON.stringify(fields)).toString('base64url')}`;
const activation = (fields: Record<string, unknown>) => code('lfr1.', { app_id: owner.app_id, nonce: 'request-nonce-0001', ...fields });

/** The file's header and claims, once its signature verifies with the application's public key. */
async function opened(file: string): Promise<{ header: Record<string, unknown>; claims: Record<string, any> }> {
  const { payload, protectedHeader } = await compactVerify(file, await importJWK(publicKey.jwk, 'EdDSA'));
  return { header: protectedHeader, claims: JSON.parse(new TextDecoder().decode(payload)) };
}

const fileKey = (license: string, hwid: string) => new Uint8Array(hkdfSync('sha256', Buffer.from(license), Buffer.from(hwid), Buffer.from('license-file'), 32));

describe('POST /license-file online', () => {
  it('answers /auth\'s success and data plus a file signed with the application key whose `data` is exactly that data', async () => {
    const { key } = await year(plain);

    const answer = await licenseFile({ license: key, hwid: 'lab-pc', nonce: 'online-nonce-0001', lifetime_seconds: 7 * day });

    expect(answer.status).toBe(200);
    expect(answer.body.message).toBe('LICENSE_VERIFIED_UNUSED_AND_LOCKED_KEY');
    expect(answer.headers.get('signature-input')).toContain('nonce="online-nonce-0001"');
    const { license_file: file, ...data } = answer.body.data;
    const { header, claims } = await opened(file);
    expect(header).toEqual({ alg: 'EdDSA', kid: expect.any(String), typ: 'license+jwt' });
    expect(claims).toEqual({
      iss: owner.app_id,
      sub: key,
      hwid: 'lab-pc',
      hwids: ['lab-pc'],
      subscription_name: 'Pro',
      subscription_level: 2,
      expires_at: at(365 * day),
      features: ['export.pdf'],
      nonce: 'online-nonce-0001',
      data,
      air_gapped: false,
      iat: nowSeconds(),
      nbf: nowSeconds(),
      exp: nowSeconds() + 7 * day,
      jti: expect.any(String),
    });
    const again = await auth({ license: key, hwid: 'lab-pc' });
    expect({ ...data, last_login: null }).toEqual({ ...again.body.data, last_login: null });
    const record = (await manage('/license/get', { license_key: key })).body.data;
    expect(record.files).toEqual([{ jti: claims.jti, hwid: 'lab-pc', issued_at: at(0), expires_at: at(7 * day), air_gapped: false }]);
    expect(record.hwids ?? [record.hwid]).toEqual(['lab-pc']);
  });

  it('lasts the application\'s longest unless asked, never past the license\'s end', async () => {
    const long = await year(plain);
    const short = await year(plain, { initial_duration: 2 * day });

    const [longFile, shortFile] = await Promise.all([licenseFile({ license: long.key, hwid: 'pc-long' }), licenseFile({ license: short.key, hwid: 'pc-short' })]);

    expect((await opened(longFile.body.data.license_file)).claims.exp).toBe(nowSeconds() + 30 * day);
    expect((await opened(shortFile.body.data.license_file)).claims.exp).toBe(nowSeconds() + 2 * day);
  });

  it('encrypts on request: a JWE only the license key and HWID open, holding the signed file', async () => {
    const { key } = await year(plain);

    const answer = await licenseFile({ license: key, hwid: 'secure-pc', encrypt: true });

    const jwe = answer.body.data.license_file as string;
    expect(jwe.split('.')).toHaveLength(5);
    expect(decodeProtectedHeader(jwe)).toEqual({ alg: 'dir', enc: 'A256GCM', cty: 'license+jwt' });
    const { plaintext } = await compactDecrypt(jwe, fileKey(key, 'secure-pc'));
    expect((await opened(new TextDecoder().decode(plaintext))).claims).toMatchObject({ sub: key, hwid: 'secure-pc', air_gapped: false });
    await expect(compactDecrypt(jwe, fileKey(key, 'other-pc'))).rejects.toThrow();
  });

  it('a device\'s new file replaces its earlier one in the record; another device\'s stays', async () => {
    const { key } = await year(plain, { max_devices: 2 });
    const first = await opened((await licenseFile({ license: key, hwid: 'pc-a' })).body.data.license_file);
    await licenseFile({ license: key, hwid: 'pc-b' });
    clock.advance(60);

    const second = await opened((await licenseFile({ license: key, hwid: 'pc-a' })).body.data.license_file);

    const files = (await manage('/license/get', { license_key: key })).body.data.files as { jti: string; hwid: string }[];
    expect(files.map((file) => file.hwid)).toEqual(['pc-b', 'pc-a']);
    expect(files.map((file) => file.jti)).toContain(second.claims.jti);
    expect(files.map((file) => file.jti)).not.toContain(first.claims.jti);
  });

  it('on a floating license borrows the seat until the file ends, and refuses a lifetime beyond the longest borrow', async () => {
    const { key } = await year(singleKey, { lease_seconds: 600, max_devices: 1 });

    const answer = await licenseFile({ license: key, hwid: 'float-pc', lifetime_seconds: 2 * day });
    const tooLong = await licenseFile({ license: key, hwid: 'float-pc', lifetime_seconds: 8 * day });
    const other = await auth({ license: key, hwid: 'other-pc' });

    expect(answer.body.data.lease_expires_at).toBe(at(2 * day));
    expect((await opened(answer.body.data.license_file)).claims.exp).toBe(nowSeconds() + 2 * day);
    expect((await stored(key)).leases['float-pc']).toEqual({ expires_at: at(2 * day), borrowed: true });
    expect([tooLong.status, tooLong.body]).toEqual([400, { success: false, message: 'Invalid license file request' }]);
    expect([other.status, other.body.message]).toEqual([403, 'SEATS_EXHAUSTED']);
    expect((await env.post('/release', { app_id: owner.app_id, license: key, hwid: 'float-pc' })).body.message).toBe('LEASE_BORROWED');
  });
});

describe('POST /license-file 400s: the documented body, nothing written', () => {
  const raw = (text: string) => env.post('/license-file', text);

  it.each([
    ['no hwid', {}],
    ['lifetime 0', { hwid: 'pc', lifetime_seconds: 0 }],
    ['lifetime -1', { hwid: 'pc', lifetime_seconds: -1 }],
    ['lifetime 3599', { hwid: 'pc', lifetime_seconds: 3599 }],
    ['lifetime 1.5 hours', { hwid: 'pc', lifetime_seconds: 5400.5 }],
    ['lifetime as a string', { hwid: 'pc', lifetime_seconds: '86400' }],
    ['lifetime past ten years', { hwid: 'pc', lifetime_seconds: 315_360_001 }],
    ['lifetime past the application\'s longest', { hwid: 'pc', lifetime_seconds: 31 * day }],
    ['encrypt as a string', { hwid: 'pc', encrypt: 'yes' }],
  ])('%s: Invalid license file request', async (_case, fields) => {
    const { key } = await year(plain);

    const answer = await licenseFile({ license: key, ...fields });

    expect([answer.status, answer.body]).toEqual([400, { success: false, message: 'Invalid license file request' }]);
    expect((await stored(key)).first_used_at).toBeNull();
  });

  it('a lifetime of 1e309 is refused as the 400 too', async () => {
    const { key } = await year(plain);

    const answer = await raw(`{"app_id":"${owner.app_id}","license":"${key}","hwid":"pc","lifetime_seconds":1e309}`);

    expect([answer.status, answer.body.message]).toEqual([400, 'Invalid license file request']);
  });

  it('checks /auth\'s own 400s and the nonce first', async () => {
    expect((await env.post('/license-file', { license: 'K', hwid: 'pc' })).body.message).toBe('App ID is required');
    expect((await licenseFile({ hwid: 'pc', lifetime_seconds: 0 })).body.message).toBe('No valid authentication method provided (missing license key or username/password)');
    expect((await licenseFile({ license: 'K', hwid: 'pc', nonce: 'bad nonce!', lifetime_seconds: 0 })).body.message).toBe('Invalid nonce');
  });

  it.each([
    ['not a code', () => 'hello'],
    ['a return code', () => code('lfx1.', { app_id: owner.app_id, license: 'K', hwid: 'pc', jti: 'j' })],
    ['a truncated request', () => activation({ license: 'K', hwid: 'pc' }).slice(0, 30)],
    ['a re-encoded request', () => `lfr1.${Buffer.from(JSON.stringify({ app_id: owner.app_id, license: 'K', hwid: 'pc', nonce: 'request-nonce-0001' })).toString('base64')}`],
    ['no nonce', () => activation({ license: 'K', hwid: 'pc', nonce: undefined })],
    ['a malformed nonce', () => activation({ license: 'K', hwid: 'pc', nonce: 'bad nonce!' })],
    ['no hwid', () => activation({ license: 'K' })],
    ['an HWID named __proto__', () => activation({ license: 'K', hwid: '__proto__' })],
    ['a lifetime of 0', () => activation({ license: 'K', hwid: 'pc', lifetime_seconds: 0 })],
    ['a lifetime as a string', () => activation({ license: 'K', hwid: 'pc', lifetime_seconds: 'long' })],
    ['an app id that is no UUID', () => activation({ app_id: 'nope', license: 'K', hwid: 'pc' })],
    ['JSON that is no object', () => `lfr1.${Buffer.from('[1,2]').toString('base64url')}`],
    ['a 1 MB request', () => `lfr1.${'A'.repeat(60_000)}`],
  ])('an activation request with %s: Invalid activation request', async (_case, request) => {
    const answer = await env.post('/license-file', { request: request() });

    expect([answer.status, answer.body]).toEqual([400, { success: false, message: 'Invalid activation request' }]);
  });

  it('an activation request for another application than the body names: Invalid activation request, nothing written', async () => {
    const { key } = await year(plain);
    const other = await withAnotherApp();

    const answer = await env.post('/license-file', { app_id: other, request: activation({ license: key, hwid: 'pc' }) });

    expect([answer.status, answer.body.message]).toEqual([400, 'Invalid activation request']);
    expect((await stored(key)).first_used_at).toBeNull();
  });
});

async function withAnotherApp(): Promise<string> {
  return (await manage('/app/create', { name: 'Other app', request_id: `other-${Date.now()}-${Math.random()}` })).body.data.app_id;
}

describe('POST /license-file 403s: /auth\'s checks in order', () => {
  it('answers each with /auth\'s code, and writes no file', async () => {
    const paused = await year(plain, { status: 'paused' });
    const lapsed = await year(plain, { first_used_at: '2020-01-01T00:00:00.000Z', expires_at: '2020-01-31T00:00:00.000Z' });
    const bound = await year(plain, { hwid: 'pc-a', first_used_at: at(0), expires_at: at(day) });
    const seat = await year(singleKey, { lease_seconds: 600 });
    const claimed = await year(singleKey);
    const claimer = await year(singleKey);
    await licenseFile({ license: seat.key, hwid: 'seat-a' });
    await licenseFile({ license: claimer.key, hwid: 'claimed-pc' });

    const answers = await Promise.all([
      licenseFile({ license: 'NO-SUCH-KEY', hwid: 'pc' }),
      licenseFile({ license: paused.key, hwid: 'pc' }),
      licenseFile({ license: lapsed.key, hwid: 'pc' }),
      licenseFile({ license: bound.key, hwid: 'pc-b' }),
      licenseFile({ license: seat.key, hwid: 'seat-b' }),
      licenseFile({ license: claimed.key, hwid: 'claimed-pc' }),
      licenseFile({ username: 'nobody-at-all', password: 'wrong password', hwid: 'pc' }),
      env.post('/license-file', { app_id: '00000000-0000-4000-8000-000000000000', license: 'K', hwid: 'pc' }),
    ]);

    expect(answers.map((answer) => `${answer.status} ${answer.body.message}`)).toEqual([
      '403 LICENSE_NOT_FOUND',
      '403 LICENSE_NOT_ACTIVE',
      '403 LICENSE_EXPIRED',
      '403 HWID_MISMATCH',
      '403 SEATS_EXHAUSTED',
      '403 DEVICE_ALREADY_REGISTERED_WITH_OTHER_LICENSE',
      '403 INVALID_USERNAME_OR_PASSWORD',
      '403 INVALID_APP_ID',
    ]);
    for (const license of [paused, lapsed, bound, claimed]) expect((await stored(license.key)).files).toBeUndefined();
    expect(Object.values((await stored(seat.key)).files ?? {}).map((file) => file.hwid)).toEqual(['seat-a']);
  });

  it('a blacklisted HWID is HWID_BLACKLISTED', async () => {
    const { key } = await year(plain);
    await blacklist(env, owner.app_id, 'hwid', 'banned-lab-pc');

    const answer = await licenseFile({ license: key, hwid: 'banned-lab-pc' });

    expect([answer.status, answer.body.message]).toEqual([403, 'HWID_BLACKLISTED']);
  });
});

describe('air-gapped activation', () => {
  it('{request} alone: the request\'s fields as if sent, its nonce signed into the answer and carried by the file, air_gapped', async () => {
    const { key } = await year(plain);
    const request = activation({ license: key, hwid: 'offline-pc', nonce: 'air-gapped-nonce-01', lifetime_seconds: 10 * day });

    const answer = await env.post('/license-file', { request });

    expect([answer.status, answer.body.message]).toEqual([200, 'LICENSE_VERIFIED_UNUSED_AND_LOCKED_KEY']);
    expect(answer.headers.get('signature-input')).toContain('nonce="air-gapped-nonce-01"');
    const { claims } = await opened(answer.body.data.license_file);
    expect(claims).toMatchObject({ iss: owner.app_id, sub: key, hwid: 'offline-pc', nonce: 'air-gapped-nonce-01', air_gapped: true, exp: nowSeconds() + 10 * day });
    const record = (await manage('/license/get', { license_key: key })).body.data;
    expect(record.files).toEqual([{ jti: claims.jti, hwid: 'offline-pc', issued_at: at(0), expires_at: at(10 * day), air_gapped: true }]);
  });

  it('an encrypted file from a request opens with the request\'s license key and HWID', async () => {
    const { key } = await year(plain);

    const answer = await env.post('/license-file', { app_id: owner.app_id, request: activation({ license: key, hwid: 'vault-pc', encrypt: true }) });

    const { plaintext } = await compactDecrypt(answer.body.data.license_file, fileKey(key, 'vault-pc'));
    expect((await opened(new TextDecoder().decode(plaintext))).claims).toMatchObject({ air_gapped: true, nonce: 'request-nonce-0001' });
  });
});

describe('POST /license-file/return', () => {
  const issued = async (key: string, hwid: string) => (await opened((await licenseFile({ license: key, hwid })).body.data.license_file)).claims.jti as string;
  const returnCode = (key: string, hwid: string, jti: string, appId = owner.app_id) => code('lfx1.', { app_id: appId, license: key, hwid, jti });

  it('frees a node-locked device, answers LICENSE_FILE_RETURNED with the data after, and drops the file', async () => {
    const { key } = await year(plain);
    const jti = await issued(key, 'lab-pc');

    const answer = await returnFile({ request: returnCode(key, 'lab-pc', jti), nonce: 'return-nonce-0001' });

    expect([answer.status, answer.body.message]).toEqual([200, 'LICENSE_FILE_RETURNED']);
    expect(answer.headers.get('signature-input')).toContain('nonce="return-nonce-0001"');
    expect(answer.body.data).toMatchObject({ key, last_hwid_reset_at: at(0) });
    const license = await stored(key);
    expect(license.hwids).toEqual([]);
    expect(license.files).toEqual({});
    expect((await licenseFile({ license: key, hwid: 'next-pc' })).status).toBe(200);
  });

  it('accepts the body\'s app_id when it is the code\'s, and refuses another', async () => {
    const { key } = await year(plain);
    const jti = await issued(key, 'lab-pc');

    const other = await returnFile({ app_id: await withAnotherApp(), request: returnCode(key, 'lab-pc', jti) });
    const same = await returnFile({ app_id: owner.app_id, request: returnCode(key, 'lab-pc', jti) });

    expect([other.status, other.body.message]).toEqual([400, 'Invalid return code']);
    expect([same.status, same.body.message]).toEqual([200, 'LICENSE_FILE_RETURNED']);
  });

  it('frees a floating seat even while the file borrows it', async () => {
    const { key } = await year(singleKey, { lease_seconds: 600 });
    const jti = await issued(key, 'returning-float-pc');

    const answer = await returnFile({ request: returnCode(key, 'returning-float-pc', jti) });

    expect([answer.status, answer.body.message]).toEqual([200, 'LICENSE_FILE_RETURNED']);
    expect((await stored(key)).leases).toEqual({});
    expect((await auth({ license: key, hwid: 'next-pc' })).status).toBe(200);
    expect(checkInvariants(await scanAll(env.deps.table))).toEqual([]);
  });

  it('on a license without HWID lock drops the file, a reset like the others', async () => {
    const { key } = await year(plain, { hwid_lock: false });
    const jti = await issued(key, 'any-pc');

    const answer = await returnFile({ request: returnCode(key, 'any-pc', jti) });

    expect([answer.status, answer.body.message]).toEqual([200, 'LICENSE_FILE_RETURNED']);
    expect(await stored(key)).toMatchObject({ files: {}, hwids: [], last_hwid_reset_at: at(0) });
  });

  it.each([
    ['a malformed code', () => ({ request: 'lfx1.!!' })],
    ['an activation request', () => ({ request: activation({ license: 'K', hwid: 'pc' }) })],
    ['no code', () => ({})],
    ['a body that is no object', () => [1]],
  ])('%s: Invalid return code', async (_case, body) => {
    const answer = await returnFile(body());

    expect([answer.status, answer.body]).toEqual([400, { success: false, message: 'Invalid return code' }]);
  });

  it('a jti that is no live file of that device: Invalid return code, nothing freed', async () => {
    const { key } = await year(plain, { max_devices: 2 });
    const jti = await issued(key, 'pc-a');
    const ended = await year(plain, { initial_duration: 3 * 3600 });
    const endedJti = await issued(ended.key, 'pc-e');
    await issued(key, 'pc-b');
    clock.advance(4 * 3600);

    const answers = await Promise.all([
      returnFile({ request: returnCode(key, 'pc-a', 'no-such-jti') }),
      returnFile({ request: returnCode(key, 'pc-b', jti) }),
      returnFile({ request: returnCode(ended.key, 'pc-e', endedJti) }),
    ]);

    expect(answers.map((answer) => `${answer.status} ${answer.body.message}`)).toEqual(['400 Invalid return code', '400 Invalid return code', '403 LICENSE_EXPIRED']);
    expect((await stored(key)).hwids).toEqual(['pc-a', 'pc-b']);
  });

  it('obeys the reset rules: HWID_RESET_NOT_ALLOWED, and HWID_RESET_COOLDOWN for a return while the interval runs, so a next device waits for its file until then', async () => {
    const locked = await year(plain, { hwid_reset_allowed: false });
    const lockedJti = await issued(locked.key, 'pc');
    const timed = await year(plain, { hwid_reset_interval: day });
    const first = await issued(timed.key, 'pc-1');
    expect((await returnFile({ request: returnCode(timed.key, 'pc-1', first) })).status).toBe(200);
    const second = await issued(timed.key, 'pc-2');

    const refused = await returnFile({ request: returnCode(locked.key, 'pc', lockedJti) });
    const cooling = await returnFile({ request: returnCode(timed.key, 'pc-2', second) });
    const thirdWhileCooling = await licenseFile({ license: timed.key, hwid: 'pc-3' });
    clock.advance(day);
    const later = await returnFile({ request: returnCode(timed.key, 'pc-2', second) });
    const thirdAfter = await licenseFile({ license: timed.key, hwid: 'pc-3' });

    expect([refused.status, refused.body.message]).toEqual([403, 'HWID_RESET_NOT_ALLOWED']);
    expect([cooling.status, cooling.body.message, Object.keys(cooling.body.data).sort()]).toEqual([403, 'HWID_RESET_COOLDOWN', ['hwid_reset_cooldown', 'last_hwid_reset_at', 'next_reset_at']]);
    expect([thirdWhileCooling.status, thirdWhileCooling.body.message]).toEqual([403, 'HWID_MISMATCH']);
    expect([later.status, later.body.message]).toEqual([200, 'LICENSE_FILE_RETURNED']);
    expect([thirdAfter.status, thirdAfter.body.message]).toEqual([200, 'LICENSE_VERIFIED_USED_AND_LOCKED_KEY']);
  });

  it('a device the owner removed meanwhile: HWID_NOT_BOUND', async () => {
    const { key } = await year(plain);
    const jti = await issued(key, 'pc');
    await manage('/hwid/remove', { license_key: key, hwid: 'pc' });

    const answer = await returnFile({ request: returnCode(key, 'pc', jti) });

    expect([answer.status, answer.body.message]).toEqual([403, 'HWID_NOT_BOUND']);
  });

  it('returned twice: the second is Invalid return code', async () => {
    const { key } = await year(plain);
    const jti = await issued(key, 'pc');

    const first = await returnFile({ request: returnCode(key, 'pc', jti) });
    const second = await returnFile({ request: returnCode(key, 'pc', jti) });

    expect([first.status, second.status, second.body.message]).toEqual([200, 400, 'Invalid return code']);
  });
});

describe('license files under races', () => {
  it('10 concurrent /license-file for 10 new devices on a 1-seat license: one device wins, one file and one binding are stored', async () => {
    const { key } = await year(singleKey);
    const hwids = Array.from({ length: 10 }, (_, index) => `racer-${index}`);

    const answers = await Promise.all(hwids.map((hwid) => licenseFile({ license: key, hwid })));

    const winners = hwids.filter((_, index) => answers[index]!.status === 200);
    expect(winners).toHaveLength(1);
    expect(answers.filter((answer) => answer.status !== 200).map((answer) => answer.body.message)).toEqual(Array(9).fill('HWID_MISMATCH'));
    const license = await stored(key);
    expect(license.hwids).toEqual(winners);
    expect(Object.values(license.files ?? {}).map((file) => file.hwid)).toEqual(winners);
    expect(checkInvariants(await scanAll(env.deps.table))).toEqual([]);
  });

  it('N concurrent /license-file on a floating license of 3 seats: exactly 3 files and 3 leases', async () => {
    const { key } = await year(singleKey, { lease_seconds: 600, max_devices: 3 });
    const hwids = Array.from({ length: 12 }, (_, index) => `float-racer-${index}`);

    const answers = await Promise.all(hwids.map((hwid) => licenseFile({ license: key, hwid, lifetime_seconds: day })));

    const winners = hwids.filter((_, index) => answers[index]!.status === 200);
    expect(winners).toHaveLength(3);
    const license = await stored(key);
    expect(Object.keys(license.leases).sort()).toEqual([...winners].sort());
    expect(Object.values(license.files ?? {}).map((file) => file.hwid).sort()).toEqual([...winners].sort());
  });

  it('5 racing returns of one file: one LICENSE_FILE_RETURNED, the others Invalid return code', async () => {
    const { key } = await year(plain);
    const jti = (await opened((await licenseFile({ license: key, hwid: 'pc' })).body.data.license_file)).claims.jti;
    const request = code('lfx1.', { app_id: owner.app_id, license: key, hwid: 'pc', jti });

    const answers = await Promise.all(Array.from({ length: 5 }, () => returnFile({ request })));

    expect(answers.map((answer) => `${answer.status} ${answer.body.message}`).sort()).toEqual([
      '200 LICENSE_FILE_RETURNED',
      ...Array(4).fill('400 Invalid return code'),
    ]);
    expect((await stored(key)).files).toEqual({});
  });
});
