import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LicenseClient } from '../../clients/app-typescript/src/index';
import { machineFingerprint } from '../../clients/app-typescript/src/machine-id';
import {
  day,
  decodeCode,
  fileRefusals,
  licenseData as dataOf,
  mintLicenseFile,
  mintOfflineToken,
  startSignedStandIn,
  testSigningKey,
  type FileToMint,
  type SignedStandIn,
  type TestSigningKey,
} from './license-files';
import type { Subscription } from '#data/model/subscription';
import { startLocalServer } from '../../local/server';
import { seedLicense, seedSubscription } from './fixtures';
import { createOwner, type Owner } from './owners';
import type { Ran } from './run-program';
import type { SteeredService } from './steered-service';

/**
 * The license-file, air-gapped and trial surface of the native client libraries
 * (C, C#, Go), one set of cases for all three, as the TypeScript library's own
 * tests hold it (test/clients/app-typescript-license-files.test.ts): files
 * minted with a test key as the service mints them, and a stand-in on loopback
 * that signs its answers with the service's own signing code.
 *
 * Each library has a small driver program that makes one call per run,
 * `<driver> <call> name=value ...` (calls: check, license-file,
 * activation-request, load, return-code, return-file, trial), with the client's
 * settings in LICENSING_URL (unset: no service), LICENSING_APP_ID,
 * LICENSING_PUBLIC_KEY, LICENSING_STATE_DIR, LICENSING_NOW (seconds) and
 * LICENSING_TIMEOUT_MS, and prints one JSON line: `{ok: true, message, data,
 * offline}` or `{ok: false, code, data}`. All state is on disk, so one run
 * after another is one program started again, and a state folder written by
 * the TypeScript library is read by the native one and the other way round.
 */

export type Outcome = { ok: true; message: string; data: Record<string, unknown>; offline: boolean } | { ok: false; code: string; data: unknown };

/** Runs the library's driver once; `check` looks at what it printed to stderr (a sanitizer's finding fails the test there). */
export interface NativeDriver {
  run(args: string[], env: Record<string, string>): Promise<Ran>;
  check?(ran: Ran): void;
}

type Value = string | number | boolean | undefined;

const optional = (name: string, value: string | undefined): Record<string, string> => (value === undefined ? {} : { [name]: value });

/** Runs the driver once with `fields` as its `name=value` arguments and reads the one JSON line it printed. */
async function callDriver(library: string, native: NativeDriver, name: string, fields: Record<string, Value>, env: Record<string, string>): Promise<Outcome> {
  const args = [name, ...Object.entries(fields).flatMap(([field, value]) => (value === undefined ? [] : [`${field}=${String(value)}`]))];
  const ran = await native.run(args, env);
  native.check?.(ran);
  if (ran.code !== 0) throw new Error(`the ${library} driver failed (${ran.code}): ${ran.stdout}\n${ran.stderr}`);
  return JSON.parse(ran.stdout.trim()) as Outcome;
}

async function failed(outcome: Promise<Outcome>) {
  const result = await outcome;
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result)}`);
  return result;
}

/** The shared cases, run against one library's driver. */
export function describeNativeLicenseFiles(library: string, driver: () => NativeDriver | undefined): void {
  let appKey: TestSigningKey;
  let otherKey: TestSigningKey;
  let service: SignedStandIn;
  const appId = randomUUID();
  const work = mkdtempSync(join(tmpdir(), 'native-license-files-'));
  let now = Math.floor(Date.now() / 1000);
  let dirs = 0;
  const stateDir = () => join(work, `state-${(dirs += 1)}`);

  beforeAll(async () => {
    [appKey, otherKey] = await Promise.all([testSigningKey(), testSigningKey()]);
    service = await startSignedStandIn(appKey);
  });
  afterAll(async () => {
    await service?.close();
    rmSync(work, { recursive: true, force: true });
  });
  afterEach(() => {
    now = Math.floor(Date.now() / 1000);
    service.answers.clear();
  });

  /** One call of the library: `dir` its state folder; `online` gives it the stand-in's URL. */
  const call = (name: string, fields: Record<string, Value>, dir: string, options: { online?: boolean; url?: string } = {}) =>
    callDriver(library, driver()!, name, fields, {
      LICENSING_APP_ID: appId,
      LICENSING_PUBLIC_KEY: appKey.pem,
      ...(dir === '' ? {} : { LICENSING_STATE_DIR: dir }),
      LICENSING_NOW: String(now),
      LICENSING_TIMEOUT_MS: '3000',
      ...optional('LICENSING_URL', options.url ?? (options.online ? service.url : undefined)),
    });
  const mint = (file: Omit<FileToMint, 'appId' | 'now'>) => mintLicenseFile(appKey, { appId, now, ...file });
  const licenseData = (license: string, hwid: string) => dataOf(license, hwid, now);
  /** The TypeScript library on the same state folder and clock. */
  const typescript = (dir: string, url?: string) => new LicenseClient({ appId, publicKey: appKey.jwk, stateDir: dir, now: () => now * 1000, ...(url ? { url, timeoutMs: 3000 } : {}) });

  async function waiting(options: { encrypt?: boolean } = {}) {
    const dir = stateDir();
    const license = `KEY-${randomUUID().slice(0, 8)}`;
    const hwid = `device-${randomUUID().slice(0, 8)}`;
    const made = await call('activation-request', { license, hwid, encrypt: options.encrypt }, dir);
    if (!made.ok) throw new Error(`activation-request failed: ${JSON.stringify(made)}`);
    const request = made.data.request as string;
    return { dir, license, hwid, request, nonce: decodeCode(request, 'lfr1.').nonce as string };
  }

  describe(`${library}: activation requests and license files`, () => {
    it('makes an activation request as lfr1. and the base64url of its fields, a fresh nonce kept for each, with its portal link', async () => {
      const dir = stateDir();
      const first = await call('activation-request', { license: 'KEY-1', hwid: 'lab-pc', lifetime_seconds: 7200, encrypt: true, portal_url: 'https://licenses.example.com/portal/' }, dir);
      const second = await call('activation-request', { license: 'KEY-1', hwid: 'lab-pc' }, dir);
      if (!first.ok || !second.ok) throw new Error(JSON.stringify([first, second]));
      const fields = decodeCode(first.data.request as string, 'lfr1.');
      expect(Object.keys(fields)).toEqual(['app_id', 'license', 'hwid', 'nonce', 'lifetime_seconds', 'encrypt']);
      expect(fields).toMatchObject({ app_id: appId, license: 'KEY-1', hwid: 'lab-pc', lifetime_seconds: 7200, encrypt: true });
      expect(fields.nonce).toMatch(/^[A-Za-z0-9_-]{16,128}$/);
      expect(first.data.link).toBe(`https://licenses.example.com/portal/activate/#${first.data.request as string}`);
      const plain = decodeCode(second.data.request as string, 'lfr1.');
      expect(Object.keys(plain)).toEqual(['app_id', 'license', 'hwid', 'nonce']);
      expect(second.data).not.toHaveProperty('link');
      expect(plain.nonce).not.toBe(fields.nonce);
      // The format of the TypeScript and Python libraries: a JSON array of {license, hwid, nonce}, mode 0600.
      const kept = JSON.parse(readFileSync(join(dir, 'activation-requests.json'), 'utf8')) as unknown[];
      expect(kept).toEqual([
        { license: 'KEY-1', hwid: 'lab-pc', nonce: fields.nonce },
        { license: 'KEY-1', hwid: 'lab-pc', nonce: plain.nonce },
      ]);
      expect(statSync(join(dir, 'activation-requests.json')).mode & 0o777).toBe(0o600);
    });

    it('refuses a lifetime or hwid the service would refuse, and works only with a state folder', async () => {
      for (const lifetime of [3599, 315_360_001, -1]) {
        expect((await failed(call('activation-request', { license: 'KEY-1', hwid: 'pc', lifetime_seconds: lifetime }, stateDir()))).code).toBe('INVALID_ARGUMENT');
      }
      expect((await failed(call('activation-request', { license: 'KEY-1', hwid: 'x'.repeat(257) }, stateDir()))).code).toBe('INVALID_ARGUMENT');
      expect((await failed(call('activation-request', { license: 'KEY-1', hwid: 'pc' }, '')))).toMatchObject({ code: 'INVALID_ARGUMENT' });
    });

    it('loads a signed file made from its request, keeps it as license.lic, and check answers from it with no service', async () => {
      const { dir, license, hwid, nonce } = await waiting();
      const file = await mint({ license, hwid, nonce });
      const loaded = await call('load', { text: `\n  ${file}\r\n` }, dir);
      expect(loaded).toMatchObject({ ok: true, message: 'LICENSE_FILE_VALID', data: { iss: appId, sub: license, hwid, nonce, air_gapped: true, data: licenseData(license, hwid) } });
      expect(readFileSync(join(dir, 'license.lic'), 'utf8')).toBe(`${file}\n`);
      expect(statSync(join(dir, 'license.lic')).mode & 0o777).toBe(0o600);
      expect(readdirSync(dir).sort()).toEqual(['activation-requests.json', 'clock.json', 'license.lic']);
      expect(JSON.parse(readFileSync(join(dir, 'activation-requests.json'), 'utf8'))).toEqual([]);
      expect(JSON.parse(readFileSync(join(dir, 'clock.json'), 'utf8'))).toEqual({ seen: now });
      const checked = await call('check', { license, hwid }, dir);
      expect(checked).toEqual({ ok: true, message: 'LICENSE_FILE_VALID', data: (loaded as { data: unknown }).data, offline: true });
      // The request is answered: the same file again waits for a new request.
      expect((await failed(call('load', { text: file }, dir))).code).toBe('LICENSE_FILE_MISMATCH');
    });

    it('loads an encrypted file, which only a check naming its license key and device reads', async () => {
      const { dir, license, hwid, nonce } = await waiting({ encrypt: true });
      const file = await mint({ license, hwid, nonce, encrypt: true });
      expect(file.split('.')).toHaveLength(5);
      expect(await call('load', { text: file }, dir)).toMatchObject({ ok: true, data: { sub: license, hwid, air_gapped: true } });
      expect(await call('check', { license, hwid }, dir)).toMatchObject({ ok: true, message: 'LICENSE_FILE_VALID', offline: true, data: { sub: license } });
      expect((await failed(call('check', { license, hwid: 'another-device' }, dir))).code).toBe('NETWORK_ERROR');
      expect((await failed(call('check', { username: 'ana', password: 'secret', hwid }, dir))).code).toBe('NETWORK_ERROR');
    });

    it('loads a file made online (no nonce, not air-gapped) for the license and device of a waiting request', async () => {
      const { dir, license, hwid } = await waiting();
      expect(await call('load', { text: await mint({ license, hwid }) }, dir)).toMatchObject({ ok: true, data: { sub: license, air_gapped: false } });
    });

    it.each(fileRefusals(() => appKey, () => otherKey, appId, () => now))('refuses a file %s with %s, keeping nothing and the request still waiting', async (_name, code, make) => {
      const { dir, license, hwid, nonce } = await waiting();
      expect((await failed(call('load', { text: await make({ license, hwid, nonce }) }, dir))).code).toBe(code);
      expect(existsSync(join(dir, 'license.lic'))).toBe(false);
      expect(await call('load', { text: await mint({ license, hwid, nonce }) }, dir)).toMatchObject({ ok: true, data: { sub: license } });
    });

    it('says when an expired file ended, and gives a minute of leeway to a clock behind the service', async () => {
      const { dir, license, hwid, nonce } = await waiting();
      const expired = await failed(call('load', { text: await mint({ license, hwid, nonce, claims: { exp: now - 10 } }) }, dir));
      expect(expired).toEqual({ ok: false, code: 'LICENSE_FILE_EXPIRED', data: { expired_at: new Date((now - 10) * 1000).toISOString() } });
      expect(await call('load', { text: await mint({ license, hwid, nonce, claims: { iat: now + 50, nbf: now + 50 } }) }, dir)).toMatchObject({ ok: true });
    });

    it('answers a check by username from a signed file whose data has that username', async () => {
      const { dir, license, hwid, nonce } = await waiting();
      await call('load', { text: await mint({ license, hwid, nonce, claims: { data: { ...licenseData(license, hwid), username: 'ana' } } }) }, dir);
      expect(await call('check', { username: 'ANA', password: 'anything', hwid }, dir)).toMatchObject({ ok: true, message: 'LICENSE_FILE_VALID', data: { sub: license } });
      expect((await failed(call('check', { username: 'ben', password: 'anything', hwid }, dir))).code).toBe('NETWORK_ERROR');
    });

    it('answers from the file until its exp when the service is out of reach, then prefers a valid offline token', async () => {
      const { dir, license, hwid, nonce } = await waiting();
      await call('load', { text: await mint({ license, hwid, nonce, claims: { exp: now + 2 * day } }) }, dir);
      expect(await call('check', { license, hwid }, dir, { url: 'http://127.0.0.1:9' })).toMatchObject({ ok: true, message: 'LICENSE_FILE_VALID', offline: true });
      expect((await failed(call('check', { license: 'ANOTHER-KEY', hwid }, dir))).code).toBe('NETWORK_ERROR');
      now += 2 * day;
      expect(await failed(call('check', { license, hwid }, dir))).toEqual({ ok: false, code: 'LICENSE_FILE_EXPIRED', data: { expired_at: new Date(now * 1000).toISOString() } });
      writeFileSync(join(dir, 'offline-token.json'), JSON.stringify({ token: await mintOfflineToken(appKey, { appId, license, hwid, now }) }));
      expect(await call('check', { license, hwid }, dir)).toMatchObject({ ok: true, message: 'OFFLINE_TOKEN_VALID', data: { sub: license } });
    });

    it('refuses an altered stored file', async () => {
      const { dir, license, hwid, nonce } = await waiting();
      const file = await mint({ license, hwid, nonce });
      await call('load', { text: file }, dir);
      const [header, payload, signature] = file.split('.');
      const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as Record<string, unknown>;
      writeFileSync(join(dir, 'license.lic'), `${header}.${Buffer.from(JSON.stringify({ ...claims, subscription_level: 99 })).toString('base64url')}.${signature}\n`);
      expect((await failed(call('check', { license, hwid }, dir))).code).toBe('INVALID_SIGNATURE');
    });

    it('refuses the stored file and token with CLOCK_MOVED_BACK once the clock is more than a day behind the latest time seen', async () => {
      const { dir, license, hwid, nonce } = await waiting();
      await call('load', { text: await mint({ license, hwid, nonce, claims: { iat: now - 5 * day, nbf: now - 5 * day } }) }, dir);
      now += 3 * day;
      expect(await call('check', { license, hwid }, dir)).toMatchObject({ ok: true, offline: true });
      now -= 20 * 3600;
      expect(await call('check', { license, hwid }, dir)).toMatchObject({ ok: true, offline: true });
      now -= 5 * 3600;
      expect(await failed(call('check', { license, hwid }, dir))).toEqual({
        ok: false,
        code: 'CLOCK_MOVED_BACK',
        data: { latest_seen_at: new Date((now + 25 * 3600) * 1000).toISOString() },
      });
      const next = decodeCode(((await call('activation-request', { license, hwid }, dir)) as { data: { request: string } }).data.request, 'lfr1.').nonce as string;
      expect((await failed(call('load', { text: await mint({ license, hwid, nonce: next }) }, dir))).code).toBe('CLOCK_MOVED_BACK');

      const tokenDir = stateDir();
      mkdirSync(tokenDir);
      writeFileSync(join(tokenDir, 'offline-token.json'), JSON.stringify({ token: await mintOfflineToken(appKey, { appId, license, hwid, now: now - day }) }));
      expect(await call('check', { license, hwid }, tokenDir)).toMatchObject({ ok: true, message: 'OFFLINE_TOKEN_VALID' });
      now -= 2 * day;
      expect((await failed(call('check', { license, hwid }, tokenDir))).code).toBe('CLOCK_MOVED_BACK');
    });

    it('gives the return code lfx1. of {app_id, license, hwid, jti} and deletes the file; another license’s or device’s stays', async () => {
      const { dir, license, hwid, nonce } = await waiting({ encrypt: true });
      const loaded = await call('load', { text: await mint({ license, hwid, nonce, encrypt: true }) }, dir);
      expect((await failed(call('return-code', { license, hwid: 'another-device' }, dir))).code).toBe('LICENSE_FILE_MISMATCH');
      expect((await failed(call('return-code', { license: 'ANOTHER-KEY', hwid }, dir))).code).toBe('LICENSE_FILE_MISMATCH');
      expect(existsSync(join(dir, 'license.lic'))).toBe(true);
      const returned = await call('return-code', { license, hwid }, dir);
      if (!returned.ok) throw new Error(JSON.stringify(returned));
      expect(decodeCode(returned.data.return_code as string, 'lfx1.')).toEqual({ app_id: appId, license, hwid, jti: (loaded as { data: { jti: string } }).data.jti });
      expect(existsSync(join(dir, 'license.lic'))).toBe(false);
      expect((await failed(call('check', { license, hwid }, dir))).code).toBe('NETWORK_ERROR');
      expect((await failed(call('return-code', { license, hwid }, dir))).code).toBe('LICENSE_FILE_MISMATCH');
    });
  });

  describe(`${library}: a state folder shared with the TypeScript library`, () => {
    it('reads a file the TypeScript library loaded, and the TypeScript library reads one it loaded', async () => {
      const fromTypescript = stateDir();
      const license = `KEY-${randomUUID().slice(0, 8)}`;
      const { request } = await typescript(fromTypescript).activationRequest({ license, hwid: 'pc', encrypt: true });
      await typescript(fromTypescript).loadLicenseFile(await mint({ license, hwid: 'pc', nonce: decodeCode(request, 'lfr1.').nonce as string, encrypt: true }));
      expect(await call('check', { license, hwid: 'pc' }, fromTypescript)).toMatchObject({ ok: true, message: 'LICENSE_FILE_VALID', data: { sub: license } });

      const fromNative = await waiting();
      expect(await typescript(fromNative.dir).loadLicenseFile(await mint({ license: fromNative.license, hwid: fromNative.hwid, nonce: fromNative.nonce }))).toMatchObject({
        sub: fromNative.license,
      });
      const other = await waiting();
      await call('load', { text: await mint({ license: other.license, hwid: other.hwid, nonce: other.nonce }) }, other.dir);
      expect(await typescript(other.dir).check({ license: other.license, hwid: other.hwid })).toMatchObject({ message: 'LICENSE_FILE_VALID', offline: true });
      // The latest time seen, too: the TypeScript library refuses the native one's folder once the clock went back.
      now -= 2 * day;
      await expect(typescript(other.dir).check({ license: other.license, hwid: other.hwid })).rejects.toMatchObject({ code: 'CLOCK_MOVED_BACK' });
    });
  });

  describe(`${library}: the online routes, against a signed stand-in`, () => {
    const sentTo = (path: string) => service.seen.filter((request) => request.path === path).at(-1)!.body;

    it('license-file sends the request, verifies the file with its nonce and keeps it, the service’s time the latest seen', async () => {
      const dir = stateDir();
      const license = `KEY-${randomUUID().slice(0, 8)}`;
      const serviceTime = now;
      service.answers.set('/license-file', async (body) => ({
        status: 200,
        body: {
          success: true,
          message: 'LICENSE_VERIFIED_USED_AND_LOCKED_KEY',
          data: { ...licenseData(license, 'pc'), license_file: await mint({ license, hwid: 'pc', nonce: body.nonce as string, claims: { air_gapped: false, iat: serviceTime, nbf: serviceTime, exp: serviceTime + 30 * day }, encrypt: true }) },
        },
      }));
      now += 400 * day;
      const result = await call('license-file', { license, hwid: 'pc', lifetime_seconds: 86_400, encrypt: true }, dir, { online: true });
      expect(sentTo('/license-file')).toEqual({ app_id: appId, license, hwid: 'pc', lifetime_seconds: 86_400, encrypt: true, nonce: expect.any(String) });
      if (!result.ok) throw new Error(JSON.stringify(result));
      expect(result).toMatchObject({ message: 'LICENSE_VERIFIED_USED_AND_LOCKED_KEY', offline: false, data: { key: license } });
      expect(readFileSync(join(dir, 'license.lic'), 'utf8')).toBe(`${result.data.license_file as string}\n`);
      expect(JSON.parse(readFileSync(join(dir, 'clock.json'), 'utf8'))).toEqual({ seen: serviceTime });
    });

    it('license-file refuses a genuine file made for another request, and keeps nothing', async () => {
      const dir = stateDir();
      const replayed = await mint({ license: 'KEY-1', hwid: 'pc', nonce: 'an-earlier-request' });
      service.answers.set('/license-file', { status: 200, body: { success: true, message: 'LICENSE_VERIFIED_USED_AND_LOCKED_KEY', data: { ...licenseData('KEY-1', 'pc'), license_file: replayed } } });
      expect((await failed(call('license-file', { license: 'KEY-1', hwid: 'pc' }, dir, { online: true }))).code).toBe('INVALID_SIGNATURE');
      expect(existsSync(join(dir, 'license.lic'))).toBe(false);
    });

    it('return-file sends the return code and deletes the file once the service took it back, not on a refusal', async () => {
      const { dir, license, hwid, nonce } = await waiting();
      const loaded = await call('load', { text: await mint({ license, hwid, nonce }) }, dir);
      service.answers.set('/license-file/return', { status: 403, body: { success: false, message: 'HWID_RESET_COOLDOWN', data: { next_reset_at: '2030-01-01T00:00:00.000Z' } } });
      expect(await failed(call('return-file', { license, hwid }, dir, { online: true }))).toEqual({ ok: false, code: 'HWID_RESET_COOLDOWN', data: { next_reset_at: '2030-01-01T00:00:00.000Z' } });
      expect(existsSync(join(dir, 'license.lic'))).toBe(true);

      service.answers.set('/license-file/return', { status: 200, body: { success: true, message: 'LICENSE_FILE_RETURNED', data: { ...licenseData(license, hwid), hwids: [] } } });
      expect(await call('return-file', { license, hwid }, dir, { online: true })).toMatchObject({ ok: true, message: 'LICENSE_FILE_RETURNED', data: { key: license, hwids: [] } });
      const sent = sentTo('/license-file/return');
      expect(Object.keys(sent).sort()).toEqual(['app_id', 'nonce', 'request']);
      expect(decodeCode(sent.request as string, 'lfx1.')).toEqual({ app_id: appId, license, hwid, jti: (loaded as { data: { jti: string } }).data.jti });
      expect(existsSync(join(dir, 'license.lic'))).toBe(false);
    });

    it('check deletes the stored file of a license the service refuses, and keeps another license’s', async () => {
      const { dir, license, hwid, nonce } = await waiting();
      await call('load', { text: await mint({ license, hwid, nonce }) }, dir);
      service.answers.set('/auth', { status: 403, body: { success: false, message: 'LICENSE_NOT_ACTIVE' } });
      expect((await failed(call('check', { license: 'ANOTHER-KEY', hwid }, dir, { online: true }))).code).toBe('LICENSE_NOT_ACTIVE');
      expect(existsSync(join(dir, 'license.lic'))).toBe(true);
      expect((await failed(call('check', { license, hwid }, dir, { online: true }))).code).toBe('LICENSE_NOT_ACTIVE');
      expect(existsSync(join(dir, 'license.lic'))).toBe(false);
    });

    it('trial sends the device and gives the trial license’s key; a refusal is its code with its data; a key of another license is no answer', async () => {
      const trialData = { ...licenseData('TRIAL-KEY', 'pc'), license: 'TRIAL-KEY' };
      service.answers.set('/trial', { status: 200, body: { success: true, message: 'TRIAL_STARTED', data: trialData } });
      expect(await call('trial', { hwid: 'pc' }, stateDir(), { online: true })).toEqual({ ok: true, message: 'TRIAL_STARTED', data: trialData, offline: false });
      expect(sentTo('/trial')).toEqual({ app_id: appId, hwid: 'pc', nonce: expect.any(String) });
      service.answers.set('/trial', { status: 403, body: { success: false, message: 'TRIAL_EXPIRED', data: { expires_at: '2026-01-01T00:00:00.000Z' } } });
      expect(await failed(call('trial', { hwid: 'pc' }, stateDir(), { online: true }))).toEqual({ ok: false, code: 'TRIAL_EXPIRED', data: { expires_at: '2026-01-01T00:00:00.000Z' } });
      service.answers.set('/trial', { status: 403, body: { success: false, message: 'TRIALS_DISABLED' } });
      expect((await failed(call('trial', { hwid: 'pc' }, stateDir(), { online: true }))).code).toBe('TRIALS_DISABLED');
      service.answers.set('/trial', { status: 200, body: { success: true, message: 'TRIAL_STARTED', data: { ...licenseData('TRIAL-KEY', 'pc'), license: 'OTHER-KEY' } } });
      expect((await failed(call('trial', { hwid: 'pc' }, stateDir(), { online: true }))).code).toBe('INVALID_SIGNATURE');
      service.answers.set('/trial', { status: 200, body: { success: true, message: 'TRIAL_STARTED', data: licenseData('TRIAL-KEY', 'pc') } });
      expect((await failed(call('trial', { hwid: 'pc' }, stateDir(), { online: true }))).code).toBe('INVALID_SIGNATURE');
    });
  });
}

/** How a test runs a README's air-gapped example (`<program> KEY [FILE]`, `<program> --return KEY`) and its trial example (no arguments). */
export interface NativeExamples {
  airGapped(args: string[], env: Record<string, string>): Promise<Ran>;
  trial(env: Record<string, string>): Promise<Ran>;
  /** Where each is, to hold the README to it: the README must contain these files' text. */
  readme: string;
  sources: string[];
}

/**
 * The air-gapped and trial examples of a native library's README, which behave
 * alike in every language: the air-gapped one shows an activation request's
 * link, runs from the file made from it, and gives a return code; the trial one
 * starts this computer's trial and checks with its key.
 */
export function describeNativeExamples(library: string, examples: () => NativeExamples | undefined): void {
  let appKey: TestSigningKey;
  let service: SignedStandIn;
  const appId = randomUUID();
  const work = mkdtempSync(join(tmpdir(), 'native-examples-'));
  beforeAll(async () => {
    appKey = await testSigningKey();
    service = await startSignedStandIn(appKey);
  });
  afterAll(async () => {
    await service?.close();
    rmSync(work, { recursive: true, force: true });
  });
  const environment = (home: string, online: boolean) => ({
    HOME: home,
    LICENSING_APP_ID: appId,
    LICENSING_PUBLIC_KEY: appKey.pem,
    LICENSING_PORTAL_URL: 'https://portal.example.com/',
    ...(online ? { LICENSING_URL: service.url } : {}),
  });
  const machineId = () => machineFingerprint(appId);

  describe(`the air-gapped and trial examples of the ${library} README`, () => {
    it('are in the README as the very files the tests build', () => {
      const { readme, sources } = examples()!;
      for (const source of sources) expect(readFileSync(readme, 'utf8')).toContain(readFileSync(source, 'utf8'));
    });

    it('the air-gapped program shows its activation request, runs from the file made from it, and gives a return code', async () => {
      const program = examples()!;
      const home = mkdtempSync(join(work, 'home-'));
      const env = environment(home, false);
      const license = 'KEY-AIRGAPPED';
      const first = await program.airGapped([license], env);
      expect(first).toMatchObject({ code: 3, stderr: '' });
      const link = /^This computer is not activated yet\. Open this link on a phone or another computer:\n(https:\/\/portal\.example\.com\/activate\/#(lfr1\.[A-Za-z0-9_-]+))\nthen start the program again with the license file it gives: .+ KEY-AIRGAPPED license\.lic\n$/.exec(first.stdout);
      expect(link).not.toBeNull();
      const request = decodeCode(link![2]!, 'lfr1.');
      const hwid = await machineId();
      expect(request).toEqual({ app_id: appId, license, hwid, nonce: expect.any(String), encrypt: true });

      const now = Math.floor(Date.now() / 1000);
      const path = join(work, `license-${randomUUID()}.lic`);
      writeFileSync(path, `${await mintLicenseFile(appKey, { appId, license, hwid: 'another-computer', now, nonce: request.nonce as string, encrypt: { license, hwid } })}\n`);
      expect(await program.airGapped([license, path], env)).toEqual({ code: 1, stdout: '', stderr: 'This copy is not licensed: LICENSE_FILE_MISMATCH\n' });

      writeFileSync(path, `${await mintLicenseFile(appKey, { appId, license, hwid, now, nonce: request.nonce as string, encrypt: true })}\n`);
      const licensed = { code: 0, stdout: 'Licensed with the license file of this computer: LICENSE_FILE_VALID\n', stderr: '' };
      expect(await program.airGapped([license, path], env)).toEqual(licensed);
      expect(await program.airGapped([license], env)).toEqual(licensed);

      const returned = await program.airGapped(['--return', license], env);
      expect(returned).toMatchObject({ code: 0, stderr: '' });
      const code = /^Give this return code to your vendor: (lfx1\.[A-Za-z0-9_-]+)\n$/.exec(returned.stdout);
      expect(decodeCode(code![1]!, 'lfx1.')).toEqual({ app_id: appId, license, hwid, jti: expect.any(String) });
      expect((await program.airGapped([license], env)).code).toBe(3);
    }, 120_000);

    it('the trial program starts this computer’s trial and checks with its key; an ended trial says so', async () => {
      const program = examples()!;
      const env = environment(mkdtempSync(join(work, 'home-')), true);
      const hwid = await machineId();
      const now = Math.floor(Date.now() / 1000);
      const data = { ...dataOf('TRIAL-KEY', hwid, now), expires_at: '2030-01-01T00:00:00.000Z' };
      service.answers.set('/trial', { status: 200, body: { success: true, message: 'TRIAL_STARTED', data: { ...data, license: 'TRIAL-KEY' } } });
      service.answers.set('/auth', { status: 200, body: { success: true, message: 'LICENSE_VERIFIED_USED_AND_LOCKED_KEY', data } });
      expect(await program.trial(env)).toEqual({ code: 0, stdout: 'TRIAL_STARTED until 2030-01-01T00:00:00.000Z\nLicensed (Pro)\n', stderr: '' });
      expect(service.seen.map(({ path, body }) => [path, body.hwid, body.license])).toEqual([
        ['/trial', hwid, undefined],
        ['/auth', hwid, 'TRIAL-KEY'],
      ]);

      service.answers.set('/trial', { status: 403, body: { success: false, message: 'TRIAL_EXPIRED', data: { expires_at: '2026-01-01T00:00:00.000Z' } } });
      expect(await program.trial(env)).toEqual({ code: 1, stdout: '', stderr: 'Your trial has ended: buy a license to go on\n' });
    }, 120_000);
  });
}

/**
 * The same surface against the real service (the suite's one local server, no
 * stand-in): an application of its own with a signing key, a trial tier and a
 * license locked to its device. The test plays the phone or portal of an
 * air-gapped device, posting the request and return codes itself.
 */
export function describeNativeLicenseFilesOnService(library: string, driver: () => NativeDriver | undefined, steered: () => SteeredService): void {
  let owner: Owner;
  let publicKey: string;
  let tier: Subscription;
  const work = mkdtempSync(join(tmpdir(), 'native-service-files-'));
  let dirs = 0;
  const stateDir = () => join(work, `state-${(dirs += 1)}`);

  beforeAll(async () => {
    const { env } = steered();
    owner = await createOwner(env.deps);
    publicKey = (await env.post('/app/signing-key', { app_id: owner.app_id }, owner.auth)).body.data.public_key_pem as string;
    tier = await seedSubscription(env.deps, owner, { name: 'Trial' });
    const trial = await env.post('/app/settings', { app_id: owner.app_id, trial: { subscription_id: tier.subscription_id, duration_seconds: 14 * day, per_ip_per_day: 1000 } }, owner.auth);
    if (trial.status !== 200) throw new Error(`trial settings refused: ${JSON.stringify(trial.body)}`);
  }, 60_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  // A generous deadline online (a busy machine); a short one once the service is dark, where the client keeps trying until it passes.
  const call = (name: string, fields: Record<string, Value>, dir: string, url?: string, timeoutMs = 15_000) =>
    callDriver(library, driver()!, name, fields, {
      LICENSING_APP_ID: owner.app_id,
      LICENSING_PUBLIC_KEY: publicKey,
      LICENSING_STATE_DIR: dir,
      LICENSING_TIMEOUT_MS: String(timeoutMs),
      ...optional('LICENSING_URL', url),
    });
  const lockedLicense = async () => (await seedLicense(steered().env.deps, tier, { hwid_lock: true, hwid_reset_interval: 0 })).key;
  const holder = async (key: string) => ((await steered().env.post('/license/get', { license_key: key }, owner.auth)).body.data as { hwid: string | null }).hwid;

  describe(`${library}: license files and trials against the service`, () => {
    it('checks out an encrypted file online, keeps it, and check answers from it while the service is unreachable', async () => {
      const key = await lockedLicense();
      const dir = stateDir();
      const server = await startLocalServer({ deps: steered().env.deps, port: 0 });
      const url = server.url;
      let checkedOut: Outcome;
      try {
        checkedOut = await call('license-file', { license: key, hwid: 'lab-pc', lifetime_seconds: 2 * day, encrypt: true }, dir, url);
      } finally {
        await server.close();
      }
      expect(checkedOut).toMatchObject({ ok: true, message: 'LICENSE_VERIFIED_UNUSED_AND_LOCKED_KEY', offline: false, data: { key } });
      const file = (checkedOut as { data: { license_file: string } }).data.license_file;
      expect(file.split('.')).toHaveLength(5);
      expect(readFileSync(join(dir, 'license.lic'), 'utf8')).toBe(`${file}\n`);
      expect(await call('check', { license: key, hwid: 'lab-pc' }, dir, url, 1000)).toMatchObject({
        ok: true,
        message: 'LICENSE_FILE_VALID',
        offline: true,
        data: { iss: owner.app_id, sub: key, hwid: 'lab-pc', air_gapped: false, data: { key } },
      });
    }, 120_000);

    it('activates an air-gapped device: its request through /license-file, the file loaded (one for another nonce refused), and its return code taken back', async () => {
      const key = await lockedLicense();
      const dir = stateDir();
      const { env } = steered();
      const made = await call('activation-request', { license: key, hwid: 'factory-pc', lifetime_seconds: day }, dir);
      if (!made.ok) throw new Error(`activation-request failed: ${JSON.stringify(made)}`);
      const request = made.data.request as string;

      const fields = decodeCode(request, 'lfr1.');
      const elsewhere = await env.post('/license-file', { request: `lfr1.${Buffer.from(JSON.stringify({ ...fields, nonce: `${String(fields.nonce)}-another` })).toString('base64url')}` });
      expect([elsewhere.status, elsewhere.body.data?.license_file]).toEqual([200, expect.any(String)]);
      expect((await failed(call('load', { text: elsewhere.body.data.license_file as string }, dir))).code).toBe('LICENSE_FILE_MISMATCH');
      expect(existsSync(join(dir, 'license.lic'))).toBe(false);

      const answer = await env.post('/license-file', { request });
      expect([answer.status, answer.body.message]).toEqual([200, 'LICENSE_VERIFIED_USED_AND_LOCKED_KEY']);
      const loaded = await call('load', { text: `${answer.body.data.license_file as string}\n` }, dir);
      expect(loaded).toMatchObject({ ok: true, message: 'LICENSE_FILE_VALID', data: { iss: owner.app_id, sub: key, hwid: 'factory-pc', nonce: fields.nonce, air_gapped: true } });
      expect(await call('check', { license: key, hwid: 'factory-pc' }, dir)).toMatchObject({ ok: true, message: 'LICENSE_FILE_VALID', offline: true });

      const returned = await call('return-code', { license: key, hwid: 'factory-pc' }, dir);
      if (!returned.ok) throw new Error(`return-code failed: ${JSON.stringify(returned)}`);
      const taken = await env.post('/license-file/return', { request: returned.data.return_code });
      expect([taken.status, taken.body.message]).toEqual([200, 'LICENSE_FILE_RETURNED']);
      expect(await holder(key)).toBeNull();
      expect((await failed(call('check', { license: key, hwid: 'factory-pc' }, dir))).code).toBe('NETWORK_ERROR');
    }, 120_000);

    it('starts a device’s trial, resumes it with the same key, and a check with that key succeeds', async () => {
      const { env } = steered();
      const hwid = `trial-${randomUUID().slice(0, 8)}`;
      const dir = stateDir();
      const started = await call('trial', { hwid }, dir, env.server.url);
      if (!started.ok) throw new Error(`trial failed: ${JSON.stringify(started)}`);
      const trialKey = started.data.license as string;
      expect(started).toMatchObject({ message: 'TRIAL_STARTED', offline: false, data: { key: trialKey, subscription_name: 'Trial', hwid_lock: true } });
      const resumed = await call('trial', { hwid }, dir, env.server.url);
      expect(resumed).toMatchObject({ ok: true, message: 'TRIAL_RESUMED', data: { license: trialKey } });
      expect(await call('check', { license: trialKey, hwid }, dir, env.server.url)).toMatchObject({ ok: true, message: 'LICENSE_VERIFIED_USED_AND_LOCKED_KEY', offline: false, data: { key: trialKey } });
    }, 120_000);
  });
}
