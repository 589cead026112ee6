import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LicenseClient, type LicenseClientOptions } from '../../clients/app-typescript/src/index';
import { failure } from '../support/app-client';
import {
  day,
  decodeCode as decode,
  fileRefusals,
  licenseData as dataOf,
  mintLicenseFile,
  mintOfflineToken,
  startSignedStandIn,
  testSigningKey,
  type FileToMint,
  type SignedStandIn,
  type TestSigningKey,
} from '../support/license-files';

/**
 * License files, air-gapped activation and trials in the TypeScript app client
 * (clients/app-typescript): files minted with a test key exactly as its
 * README describes them (a compact JWS `typ: license+jwt`, or a
 * compact JWE `dir`/`A256GCM` keyed by HKDF-SHA256 of license key and HWID),
 * and, for the online routes, a stand-in service on loopback that signs its
 * answers with the service's own signing code and the same key.
 */
let appKey: TestSigningKey;
let otherKey: TestSigningKey;
const appId = randomUUID();
const workDir = mkdtempSync(join(tmpdir(), 'app-client-files-'));

beforeAll(async () => {
  [appKey, otherKey] = await Promise.all([testSigningKey(), testSigningKey()]);
});

let dirs = 0;
const stateDir = () => join(workDir, `state-${(dirs += 1)}`);
/** The test's clock, in seconds: every client below reads it. */
let now = Math.floor(Date.now() / 1000);
const client = (options: Partial<LicenseClientOptions> = {}) => new LicenseClient({ appId, publicKey: appKey.jwk, now: () => now * 1000, ...options });
const licenseData = (license: string, hwid: string) => dataOf(license, hwid, now);
const mint = (file: Omit<FileToMint, 'appId' | 'now'>) => mintLicenseFile(appKey, { appId, now, ...file });
const mintToken = (license: string, hwid: string, claims: Record<string, unknown> = {}) => mintOfflineToken(appKey, { appId, license, hwid, now, claims });

/** A device with its state directory and a request waiting for its file. */
async function waiting(options: { encrypt?: boolean } = {}) {
  const dir = stateDir();
  const app = client({ stateDir: dir });
  const license = `KEY-${randomUUID().slice(0, 8)}`;
  const hwid = `device-${randomUUID().slice(0, 8)}`;
  const { request } = await app.activationRequest({ license, hwid, ...(options.encrypt === undefined ? {} : { encrypt: options.encrypt }) });
  const nonce = decode(request, 'lfr1.').nonce as string;
  return { dir, app, license, hwid, nonce, request };
}

afterEach(() => {
  now = Math.floor(Date.now() / 1000);
});

describe('activationRequest', () => {
  it('is lfr1. and the base64url of {app_id, license, hwid, nonce, lifetime_seconds, encrypt}, with a fresh nonce kept for each request, and its portal link', async () => {
    const dir = stateDir();
    const app = client({ stateDir: dir });
    const first = await app.activationRequest({ license: 'KEY-1', hwid: 'lab-pc', lifetimeSeconds: 7200, encrypt: true, portalUrl: 'https://licenses.example.com/portal/' });
    const second = await app.activationRequest({ license: 'KEY-1', hwid: 'lab-pc' });

    const fields = decode(first.request, 'lfr1.');
    expect(Object.keys(fields)).toEqual(['app_id', 'license', 'hwid', 'nonce', 'lifetime_seconds', 'encrypt']);
    expect(fields).toMatchObject({ app_id: appId, license: 'KEY-1', hwid: 'lab-pc', lifetime_seconds: 7200, encrypt: true });
    expect(fields.nonce).toMatch(/^[A-Za-z0-9._~+/=-]{8,128}$/);
    expect(first.link).toBe(`https://licenses.example.com/portal/activate/#${first.request}`);
    expect(Object.keys(decode(second.request, 'lfr1.'))).toEqual(['app_id', 'license', 'hwid', 'nonce']);
    expect(second).not.toHaveProperty('link');
    expect(decode(second.request, 'lfr1.').nonce).not.toBe(fields.nonce);

    const kept = JSON.parse(readFileSync(join(dir, 'activation-requests.json'), 'utf8')) as { nonce: string }[];
    expect(kept.map((request) => request.nonce)).toEqual([fields.nonce, decode(second.request, 'lfr1.').nonce]);
    expect(statSync(join(dir, 'activation-requests.json')).mode & 0o777).toBe(0o600);
  });

  it('refuses a lifetime, encrypt flag, license or hwid the service would refuse, and works only with a state directory', async () => {
    const app = client({ stateDir: stateDir() });
    for (const lifetimeSeconds of [0, -1, 1e309, 3599, 3600.5, 315_360_001, '3600' as unknown as number]) {
      await expect(app.activationRequest({ license: 'KEY-1', hwid: 'pc', lifetimeSeconds })).rejects.toThrow(TypeError);
    }
    await expect(app.activationRequest({ license: 'KEY-1', hwid: 'pc', encrypt: 'yes' as unknown as boolean })).rejects.toThrow(TypeError);
    await expect(app.activationRequest({ license: '', hwid: 'pc' })).rejects.toThrow(TypeError);
    await expect(app.activationRequest({ license: 'KEY-1', hwid: 'x'.repeat(257) })).rejects.toThrow(TypeError);
    await expect(client().activationRequest({ license: 'KEY-1', hwid: 'pc' })).rejects.toThrow('stateDir');
  });

  it('keeps every request of calls made at once', async () => {
    const dir = stateDir();
    const app = client({ stateDir: dir });
    const made = await Promise.all(['pc-1', 'pc-2', 'pc-3', 'pc-4', 'pc-5'].map((hwid) => app.activationRequest({ license: 'KEY-1', hwid })));
    const kept = JSON.parse(readFileSync(join(dir, 'activation-requests.json'), 'utf8')) as { nonce: string }[];
    expect(kept.map((request) => request.nonce).sort()).toEqual(made.map(({ request }) => decode(request, 'lfr1.').nonce).sort());
  });

  it('keeps the last ten requests waiting', async () => {
    const dir = stateDir();
    const app = client({ stateDir: dir });
    const requests = [];
    for (let index = 0; index < 12; index += 1) requests.push(decode((await app.activationRequest({ license: `KEY-${index}`, hwid: 'pc' })).request, 'lfr1.'));
    const kept = JSON.parse(readFileSync(join(dir, 'activation-requests.json'), 'utf8')) as { license: string }[];
    expect(kept.map((request) => request.license)).toEqual(requests.slice(2).map((request) => request.license));
    const oldest = requests[0]!;
    expect((await failure(app.loadLicenseFile(await mint({ license: 'KEY-0', hwid: 'pc', nonce: oldest.nonce as string })))).code).toBe('LICENSE_FILE_MISMATCH');
    expect(await app.loadLicenseFile(await mint({ license: 'KEY-2', hwid: 'pc', nonce: requests[2]!.nonce as string }))).toMatchObject({ sub: 'KEY-2' });
  });
});

describe('loadLicenseFile', () => {
  it('accepts a signed file made from its request, keeps it as license.lic, and check answers from it offline', async () => {
    const { dir, app, license, hwid, nonce } = await waiting();
    const file = await mint({ license, hwid, nonce });

    const claims = await app.loadLicenseFile(`\n  ${file}\r\n`);

    expect(claims).toMatchObject({ iss: appId, sub: license, hwid, nonce, air_gapped: true, data: { key: license } });
    expect(readFileSync(join(dir, 'license.lic'), 'utf8')).toBe(`${file}\n`);
    expect(statSync(join(dir, 'license.lic')).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir).sort()).toEqual(['activation-requests.json', 'clock.json', 'license.lic']);
    expect(JSON.parse(readFileSync(join(dir, 'activation-requests.json'), 'utf8'))).toEqual([]);
    const checked = await client({ stateDir: dir }).check({ license, hwid });
    expect(checked).toEqual({ message: 'LICENSE_FILE_VALID', data: claims, offline: true });
    expect(claims.data).toEqual(licenseData(license, hwid));
    // The request is answered: the same file again, or another one for it, waits for a new request.
    expect((await failure(app.loadLicenseFile(file))).code).toBe('LICENSE_FILE_MISMATCH');
  });

  it('accepts an encrypted file, which only a check naming its license key and device can read', async () => {
    const { dir, app, license, hwid, nonce } = await waiting({ encrypt: true });
    const file = await mint({ license, hwid, nonce, encrypt: true });
    expect(file.split('.')).toHaveLength(5);

    expect(await app.loadLicenseFile(file)).toMatchObject({ sub: license, hwid, air_gapped: true });
    expect(readFileSync(join(dir, 'license.lic'), 'utf8')).toBe(`${file}\n`);
    expect(await client({ stateDir: dir }).check({ license, hwid })).toMatchObject({ message: 'LICENSE_FILE_VALID', offline: true, data: { sub: license, data: { key: license } } });
    expect((await failure(client({ stateDir: dir }).check({ license, hwid: 'another-device' }))).code).toBe('NETWORK_ERROR');
    expect((await failure(client({ stateDir: dir }).check({ license }))).code).toBe('NETWORK_ERROR');
  });

  it('accepts a file made online (no nonce, not air-gapped) for the license and device of a waiting request', async () => {
    const { app, license, hwid } = await waiting();
    expect(await app.loadLicenseFile(await mint({ license, hwid }))).toMatchObject({ sub: license, air_gapped: false });
  });

  it.each(fileRefusals(() => appKey, () => otherKey, appId, () => now))('refuses a file %s with %s, keeping nothing and the request still waiting', async (_name, code, make) => {
    const { dir, app, license, hwid, nonce } = await waiting();
    expect((await failure(app.loadLicenseFile(await make({ license, hwid, nonce })))).code).toBe(code);
    expect(existsSync(join(dir, 'license.lic'))).toBe(false);
    expect(await app.loadLicenseFile(await mint({ license, hwid, nonce }))).toMatchObject({ sub: license });
  });

  it('says when an expired file ended, and gives a minute of leeway to a clock behind the service', async () => {
    const { app, license, hwid, nonce } = await waiting();
    const expired = await failure(app.loadLicenseFile(await mint({ license, hwid, nonce, claims: { exp: now - 10 } })));
    expect(expired.data).toEqual({ expired_at: new Date((now - 10) * 1000).toISOString() });
    expect(await app.loadLicenseFile(await mint({ license, hwid, nonce, claims: { iat: now + 50, nbf: now + 50 } }))).toMatchObject({ sub: license });
  });

  it('needs a waiting request, and so a state directory', async () => {
    expect((await failure(client({ stateDir: stateDir() }).loadLicenseFile(await mint({ license: 'KEY-1', hwid: 'pc', nonce: 'some-nonce-1234' })))).code).toBe('LICENSE_FILE_MISMATCH');
    await expect(client().loadLicenseFile(await mint({ license: 'KEY-1', hwid: 'pc' }))).rejects.toThrow('stateDir');
  });
});

describe('check from the stored license file', () => {
  it('answers offline for its license and device until exp, when the service is out of reach', async () => {
    const { dir, app, license, hwid, nonce } = await waiting();
    await app.loadLicenseFile(await mint({ license, hwid, nonce, claims: { exp: now + 2 * day } }));
    const unreachable = client({ stateDir: dir, url: 'http://127.0.0.1:9', timeoutMs: 300 });

    expect(await unreachable.check({ license, hwid })).toMatchObject({ message: 'LICENSE_FILE_VALID', offline: true, data: { sub: license, data: { key: license } } });
    expect((await failure(unreachable.check({ license: 'ANOTHER-KEY', hwid }))).code).toBe('NETWORK_ERROR');
    expect((await failure(unreachable.check({ license, hwid: 'another-device' }))).code).toBe('NETWORK_ERROR');
    now += 2 * day;
    const expired = await failure(unreachable.check({ license, hwid }));
    expect(expired).toMatchObject({ code: 'LICENSE_FILE_EXPIRED', data: { expired_at: new Date(now * 1000).toISOString() } });
  });

  it('answers a check by username from a signed file whose data has that username', async () => {
    const { dir, app, license, hwid, nonce } = await waiting();
    await app.loadLicenseFile(await mint({ license, hwid, nonce, claims: { data: { ...licenseData(license, hwid), username: 'ana' } } }));
    expect(await client({ stateDir: dir }).check({ username: 'ANA', password: 'anything', hwid })).toMatchObject({ message: 'LICENSE_FILE_VALID', data: { sub: license } });
    expect((await failure(client({ stateDir: dir }).check({ username: 'ben', password: 'anything', hwid }))).code).toBe('NETWORK_ERROR');
  });

  it('prefers the file to the offline token, and uses the token when the file has expired', async () => {
    const { dir, app, license, hwid, nonce } = await waiting();
    await app.loadLicenseFile(await mint({ license, hwid, nonce, claims: { exp: now + day } }));
    writeFileSync(join(dir, 'offline-token.json'), JSON.stringify({ token: await mintToken(license, hwid) }));
    expect((await client({ stateDir: dir }).check({ license, hwid })).message).toBe('LICENSE_FILE_VALID');
    now += 2 * day;
    expect(await client({ stateDir: dir }).check({ license, hwid })).toMatchObject({ message: 'OFFLINE_TOKEN_VALID', data: { sub: license } });
  });

  it('refuses an altered stored file', async () => {
    const { dir, app, license, hwid, nonce } = await waiting();
    const file = await mint({ license, hwid, nonce });
    await app.loadLicenseFile(file);
    const [header, payload, signature] = file.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as Record<string, unknown>;
    writeFileSync(join(dir, 'license.lic'), `${header}.${Buffer.from(JSON.stringify({ ...claims, subscription_level: 99 })).toString('base64url')}.${signature}\n`);
    expect((await failure(client({ stateDir: dir }).check({ license, hwid }))).code).toBe('INVALID_SIGNATURE');
  });
});

describe('the clock', () => {
  it('refuses the stored file with CLOCK_MOVED_BACK once the clock is more than a day behind the latest time seen', async () => {
    const { dir, app, license, hwid, nonce } = await waiting();
    await app.loadLicenseFile(await mint({ license, hwid, nonce, claims: { iat: now - 5 * day, nbf: now - 5 * day } }));
    now += 3 * day;
    expect((await client({ stateDir: dir }).check({ license, hwid })).offline).toBe(true);
    now -= 20 * 3600;
    expect((await client({ stateDir: dir }).check({ license, hwid })).offline).toBe(true);
    now -= 5 * 3600;
    const refused = await failure(client({ stateDir: dir }).check({ license, hwid }));
    expect(refused).toMatchObject({ code: 'CLOCK_MOVED_BACK', data: { latest_seen_at: new Date((now + 25 * 3600) * 1000).toISOString() } });
    const again = client({ stateDir: dir });
    const { nonce: next } = decode((await again.activationRequest({ license, hwid })).request, 'lfr1.');
    expect((await failure(again.loadLicenseFile(await mint({ license, hwid, nonce: next as string })))).code).toBe('CLOCK_MOVED_BACK');
  });

  it('gives a stored token a minute of leeway before its nbf; further ahead it is no answer (NETWORK_ERROR), as in the other libraries', async () => {
    const dir = stateDir();
    mkdirSync(dir);
    writeFileSync(join(dir, 'offline-token.json'), JSON.stringify({ token: await mintToken('KEY-AHEAD', 'pc', { iat: now + 50, nbf: now + 50 }) }));
    expect((await client({ stateDir: dir }).check({ license: 'KEY-AHEAD', hwid: 'pc' })).message).toBe('OFFLINE_TOKEN_VALID');
    writeFileSync(join(dir, 'offline-token.json'), JSON.stringify({ token: await mintToken('KEY-AHEAD', 'pc', { iat: now + 70, nbf: now + 70 }) }));
    expect((await failure(client({ stateDir: dir }).check({ license: 'KEY-AHEAD', hwid: 'pc' }))).code).toBe('NETWORK_ERROR');
    writeFileSync(join(dir, 'offline-token.json'), JSON.stringify({ token: await mintToken('KEY-AHEAD', 'pc', { iat: now - day, nbf: now - day, exp: now - 30 }) }));
    expect((await failure(client({ stateDir: dir }).check({ license: 'KEY-AHEAD', hwid: 'pc' }))).code).toBe('OFFLINE_TOKEN_EXPIRED');
  });

  it('refuses a stored offline token the same way, keeping the latest time beside the token file', async () => {
    const dir = stateDir();
    mkdirSync(dir);
    const tokenFile = join(dir, 'token.json');
    const license = 'KEY-TOKEN';
    writeFileSync(tokenFile, JSON.stringify({ token: await mintToken(license, 'pc', { iat: now - day, nbf: now - day }) }));
    expect((await client({ tokenFile }).check({ license, hwid: 'pc' })).message).toBe('OFFLINE_TOKEN_VALID');
    expect(JSON.parse(readFileSync(`${tokenFile}.clock`, 'utf8'))).toEqual({ seen: now });
    now -= 2 * day;
    expect((await failure(client({ tokenFile }).check({ license, hwid: 'pc' }))).code).toBe('CLOCK_MOVED_BACK');
  });
});

describe('returnCode', () => {
  it('is lfx1. and the base64url of {app_id, license, hwid, jti}; the stored file is deleted', async () => {
    const { dir, app, license, hwid, nonce } = await waiting({ encrypt: true });
    const { jti } = await app.loadLicenseFile(await mint({ license, hwid, nonce, encrypt: true }));

    const code = await app.returnCode({ license, hwid });

    expect(decode(code, 'lfx1.')).toEqual({ app_id: appId, license, hwid, jti });
    expect(existsSync(join(dir, 'license.lic'))).toBe(false);
    expect((await failure(client({ stateDir: dir }).check({ license, hwid }))).code).toBe('NETWORK_ERROR');
    expect((await failure(app.returnCode({ license, hwid }))).code).toBe('LICENSE_FILE_MISMATCH');
  });

  it('refuses to return the file of another license or device, which stays', async () => {
    const { dir, app, license, hwid, nonce } = await waiting();
    await app.loadLicenseFile(await mint({ license, hwid, nonce }));
    expect((await failure(app.returnCode({ license, hwid: 'another-device' }))).code).toBe('LICENSE_FILE_MISMATCH');
    expect((await failure(app.returnCode({ license: 'ANOTHER-KEY', hwid }))).code).toBe('LICENSE_FILE_MISMATCH');
    expect(existsSync(join(dir, 'license.lic'))).toBe(true);
    await expect(client().returnCode({ license, hwid })).rejects.toThrow('stateDir');
  });
});

describe('the online routes, against a signed stand-in', () => {
  let service: SignedStandIn;
  beforeAll(async () => {
    service = await startSignedStandIn(appKey);
  });
  afterAll(() => service.close());
  afterEach(() => service.answers.clear());
  const online = (options: Partial<LicenseClientOptions> = {}) => client({ url: service.url, timeoutMs: 5000, ...options });
  const sentTo = (path: string) => service.seen.filter((request) => request.path === path).at(-1)!.body;

  it('licenseFile sends the request, verifies the file with its nonce, and keeps it', async () => {
    const dir = stateDir();
    const license = 'KEY-ONLINE';
    const serviceTime = now;
    const times = { iat: serviceTime, nbf: serviceTime, exp: serviceTime + 30 * day };
    service.answers.set('/license-file', async (body) => ({
      status: 200,
      body: {
        success: true,
        message: 'LICENSE_VERIFIED_USED_AND_LOCKED_KEY',
        data: { ...licenseData(license, 'pc'), license_file: await mint({ license, hwid: 'pc', nonce: body.nonce as string, claims: { air_gapped: false, ...times }, encrypt: true }) },
      },
    }));
    now += 400 * day;

    const result = await online({ stateDir: dir }).licenseFile({ license, hwid: 'pc', lifetimeSeconds: 86_400, encrypt: true });

    expect(sentTo('/license-file')).toEqual({ app_id: appId, license, hwid: 'pc', lifetime_seconds: 86_400, encrypt: true, nonce: expect.any(String) });
    expect(result).toMatchObject({ message: 'LICENSE_VERIFIED_USED_AND_LOCKED_KEY', offline: false, claims: { sub: license, air_gapped: false, nonce: sentTo('/license-file').nonce } });
    expect(readFileSync(join(dir, 'license.lic'), 'utf8')).toBe(`${result.data.license_file}\n`);
    // The service's time of a fresh file is the latest time seen, even when the computer's clock is far ahead.
    expect(JSON.parse(readFileSync(join(dir, 'clock.json'), 'utf8'))).toEqual({ seen: serviceTime });
  });

  it('licenseFile by username reads an encrypted file with the key the answer names', async () => {
    const license = 'KEY-USER';
    service.answers.set('/license-file', async (body) => ({
      status: 200,
      body: { success: true, message: 'LICENSE_VERIFIED_USED_AND_LOCKED_KEY', data: { ...licenseData(license, 'pc'), license_file: await mint({ license, hwid: 'pc', nonce: body.nonce as string, encrypt: true }) } },
    }));
    const result = await online().licenseFile({ username: 'ana', password: 'secret', hwid: 'pc', encrypt: true });
    expect(sentTo('/license-file')).toEqual({ app_id: appId, username: 'ana', password: 'secret', hwid: 'pc', encrypt: true, nonce: expect.any(String) });
    expect(result.claims.sub).toBe(license);
  });

  it('licenseFile refuses a genuine file made for another request, and keeps nothing', async () => {
    const dir = stateDir();
    const replayed = await mint({ license: 'KEY-1', hwid: 'pc', nonce: 'an-earlier-request' });
    service.answers.set('/license-file', { status: 200, body: { success: true, message: 'LICENSE_VERIFIED_USED_AND_LOCKED_KEY', data: { ...licenseData('KEY-1', 'pc'), license_file: replayed } } });
    expect((await failure(online({ stateDir: dir }).licenseFile({ license: 'KEY-1', hwid: 'pc' }))).code).toBe('INVALID_SIGNATURE');
    expect(existsSync(join(dir, 'license.lic'))).toBe(false);
  });

  it('returnLicenseFile sends the return code and deletes the file once the service took it back, not on a refusal', async () => {
    const { dir, app, license, hwid, nonce } = await waiting();
    const { jti } = await app.loadLicenseFile(await mint({ license, hwid, nonce }));
    const device = online({ stateDir: dir });

    service.answers.set('/license-file/return', { status: 403, body: { success: false, message: 'HWID_RESET_COOLDOWN', data: { next_reset_at: '2030-01-01T00:00:00.000Z' } } });
    expect(await failure(device.returnLicenseFile({ license, hwid }))).toMatchObject({ code: 'HWID_RESET_COOLDOWN', data: { next_reset_at: '2030-01-01T00:00:00.000Z' } });
    expect(existsSync(join(dir, 'license.lic'))).toBe(true);

    service.answers.set('/license-file/return', { status: 200, body: { success: true, message: 'LICENSE_FILE_RETURNED', data: { ...licenseData(license, hwid), hwids: [] } } });
    expect(await device.returnLicenseFile({ license, hwid })).toMatchObject({ message: 'LICENSE_FILE_RETURNED', data: { key: license, hwids: [] }, offline: false });
    const sent = sentTo('/license-file/return');
    expect(Object.keys(sent)).toEqual(['app_id', 'request', 'nonce']);
    expect(decode(sent.request as string, 'lfx1.')).toEqual({ app_id: appId, license, hwid, jti });
    expect(existsSync(join(dir, 'license.lic'))).toBe(false);
  });

  it('check deletes the stored file of a license the service refuses, and keeps another license’s', async () => {
    const { dir, app, license, hwid, nonce } = await waiting();
    await app.loadLicenseFile(await mint({ license, hwid, nonce }));
    service.answers.set('/auth', { status: 403, body: { success: false, message: 'LICENSE_NOT_ACTIVE' } });
    expect((await failure(online({ stateDir: dir }).check({ license: 'ANOTHER-KEY', hwid }))).code).toBe('LICENSE_NOT_ACTIVE');
    expect(existsSync(join(dir, 'license.lic'))).toBe(true);
    expect((await failure(online({ stateDir: dir }).check({ license, hwid }))).code).toBe('LICENSE_NOT_ACTIVE');
    expect(existsSync(join(dir, 'license.lic'))).toBe(false);
  });

  it('an online check puts the latest time seen at the service’s, forgiving a clock that was once set ahead', async () => {
    const { dir, app, license, hwid, nonce } = await waiting();
    await app.loadLicenseFile(await mint({ license, hwid, nonce, claims: { exp: now + 400 * day } }));
    const serviceTime = now;
    now += 300 * day;
    expect((await client({ stateDir: dir }).check({ license, hwid })).message).toBe('LICENSE_FILE_VALID');
    now = serviceTime;
    expect((await failure(client({ stateDir: dir }).check({ license, hwid }))).code).toBe('CLOCK_MOVED_BACK');

    service.answers.set('/auth', async (body) => ({
      status: 200,
      body: { success: true, message: 'LICENSE_VERIFIED_USED_AND_LOCKED_KEY', data: { ...licenseData(license, hwid), offline_token: await mintToken(license, hwid, { nonce: body.nonce }) } },
    }));
    expect((await online({ stateDir: dir }).check({ license, hwid })).offline).toBe(false);
    expect(JSON.parse(readFileSync(join(dir, 'clock.json'), 'utf8'))).toEqual({ seen: serviceTime });
    expect((await client({ stateDir: dir }).check({ license, hwid })).message).toBe('LICENSE_FILE_VALID');
  });

  it('startTrial sends the device and gives the trial license’s key', async () => {
    const trialData = { ...licenseData('TRIAL-KEY', 'pc'), license: 'TRIAL-KEY' };
    service.answers.set('/trial', { status: 200, body: { success: true, message: 'TRIAL_STARTED', data: trialData } });
    expect(await online().startTrial({ hwid: 'pc' })).toEqual({ message: 'TRIAL_STARTED', data: trialData, offline: false });
    expect(sentTo('/trial')).toEqual({ app_id: appId, hwid: 'pc', nonce: expect.any(String) });

    service.answers.set('/trial', { status: 200, body: { success: true, message: 'TRIAL_RESUMED', data: trialData } });
    expect((await online().startTrial({ hwid: 'pc' })).data.license).toBe('TRIAL-KEY');
  });

  it.each([
    ['TRIAL_EXPIRED', { expires_at: '2026-01-01T00:00:00.000Z' }],
    ['TRIAL_CONVERTED', undefined],
    ['TRIAL_LIMIT_REACHED', undefined],
    ['TRIALS_DISABLED', undefined],
  ])('startTrial raises %s as a LicenseError with its data', async (message, data) => {
    service.answers.set('/trial', { status: 403, body: { success: false, message, ...(data === undefined ? {} : { data }) } });
    expect(await failure(online().startTrial({ hwid: 'pc' }))).toMatchObject({ code: message, status: 403, data });
  });

  it('startTrial refuses a success that names no key, or another key than its data', async () => {
    service.answers.set('/trial', { status: 200, body: { success: true, message: 'TRIAL_STARTED', data: licenseData('TRIAL-KEY', 'pc') } });
    expect((await failure(online().startTrial({ hwid: 'pc' }))).code).toBe('INVALID_SIGNATURE');
    service.answers.set('/trial', { status: 200, body: { success: true, message: 'TRIAL_STARTED', data: { ...licenseData('TRIAL-KEY', 'pc'), license: 'OTHER-KEY' } } });
    expect((await failure(online().startTrial({ hwid: 'pc' }))).code).toBe('INVALID_SIGNATURE');
  });

  it('goes to no service without a URL', async () => {
    const before = service.seen.length;
    expect((await failure(client().startTrial({ hwid: 'pc' }))).code).toBe('NETWORK_ERROR');
    expect(service.seen.length).toBe(before);
  });
});
