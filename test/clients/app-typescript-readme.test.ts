import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Subscription } from '#data/model/subscription';
import { startTestServer, type TestServer } from '../support/env';
import { seedLicense, seedSubscription } from '../support/fixtures';
import { decodeCode, licenseData, mintLicenseFile, startSignedStandIn, testSigningKey } from '../support/license-files';
import { createOwner, type Owner } from '../support/owners';

/**
 * Runs the TypeScript examples of clients/app-typescript/README.md as a program
 * would: each in its own process (tsx), with the page's placeholders (service
 * URL, app id, public key, license key) replaced by real ones and the package
 * name by its source. Those that talk to the service run against the local
 * server; the air-gapped one loads files made with a test key as the service
 * makes them; the trial one runs against a signed stand-in answering `/trial`.
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const packageDir = join(root, 'clients', 'app-typescript');
const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');
const blocks = [...readme.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
const tsx = join(root, 'node_modules', '.bin', 'tsx');
const workDir = mkdtempSync(join(tmpdir(), 'app-client-readme-'));

let env: TestServer;
let owner: Owner;
let subscription: Subscription;
let pem: string;

beforeAll(async () => {
  env = await startTestServer();
  owner = await createOwner(env.deps);
  subscription = await seedSubscription(env.deps, owner, { usage_limits: { exports: { limit: 10, period: 'month', overage: 0 } } });
  pem = (await env.post('/app/signing-key', { app_id: owner.app_id }, owner.auth)).body.data.public_key_pem;
}, 60_000);
afterAll(() => env.close());

/** `text` with `placeholder` replaced, which must occur exactly once, so a changed page fails here instead of running against nothing. */
function replaceOnce(text: string, placeholder: string | RegExp, value: string): string {
  const count = typeof placeholder === 'string' ? text.split(placeholder).length - 1 : [...text.matchAll(new RegExp(placeholder, 'g'))].length;
  if (count !== 1) throw new Error(`the README's first example holds ${String(placeholder)} ${count} times`);
  return text.replace(placeholder, () => value);
}

interface Placeholders {
  /** The service's URL; the air-gapped example has none. */
  url?: string;
  appId?: string;
  pem?: string;
  licenseKey?: string;
}

let programs = 0;
/** The example as its own program; each placeholder given must occur in it exactly once. */
function program(code: string, values: Placeholders): string {
  let text = replaceOnce(code, "'@licensing-service/app-client'", JSON.stringify(join(packageDir, 'src', 'index.ts')));
  if (values.url !== undefined) text = replaceOnce(text, "'https://licensing.example.com'", JSON.stringify(values.url));
  text = replaceOnce(text, "'3f0c7f2e-4b1a-4c55-9d7e-0b7f1c2d3e4f'", JSON.stringify(values.appId ?? owner.app_id));
  text = replaceOnce(text, /`-----BEGIN PUBLIC KEY-----[\s\S]*?-----END PUBLIC KEY-----`/, JSON.stringify(values.pem ?? pem));
  if (values.licenseKey !== undefined) text = replaceOnce(text, "'7K2QX-M4TZP-9W3RD-HV8NB-C6YJE'", JSON.stringify(values.licenseKey));
  const file = join(workDir, `program-${(programs += 1)}.mts`);
  writeFileSync(file, text);
  return file;
}

function runProgram(file: string, home: string, args: string[] = []) {
  return new Promise<{ code: number; stdout: string; stderr: string; home: string }>((done) => {
    execFile(tsx, [file, ...args], { env: { ...process.env, HOME: home, USERPROFILE: home }, timeout: 60_000 }, (error, stdout, stderr) =>
      done({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr, home }),
    );
  });
}

const run = (code: string, licenseKey: string) => runProgram(program(code, { url: env.server.url, licenseKey }), mkdtempSync(join(workDir, 'home-')));

const [quickStart, airGapped, trial, floatingSeats, devicesAndUsage] = blocks;

describe('the examples of clients/app-typescript/README.md', () => {
  it('are the quick start, the air-gapped and trial programs, and the two that continue the quick start', () => {
    expect(blocks).toHaveLength(5);
    expect(quickStart).toContain('client.check(');
    expect(airGapped).toContain('activationRequest(');
    expect(trial).toContain('startTrial(');
    expect(floatingSeats).toContain('startHeartbeat(');
    expect(devicesAndUsage).toContain('recordUsage(');
  });

  it('the air-gapped program makes a request, loads the file made from it, checks offline and returns it', async () => {
    const key = await testSigningKey();
    const appId = randomUUID();
    const file = program(airGapped!, { appId, pem: key.pem, licenseKey: 'AIR-GAPPED-KEY' });
    const home = mkdtempSync(join(workDir, 'home-'));

    const requested = await runProgram(file, home, ['request']);
    expect(requested).toMatchObject({ code: 0, stderr: '' });
    const [, link, request] = /^scan or open: (\S+)\nor send this to your vendor: (lfr1\.\S+)\n$/.exec(requested.stdout) ?? [];
    expect(link).toBe(`https://portal.example.com/portal/activate/#${request}`);
    const asked = decodeCode(request!, 'lfr1.') as { license: string; hwid: string; nonce: string };
    expect(asked).toMatchObject({ app_id: appId, license: 'AIR-GAPPED-KEY', hwid: expect.stringMatching(/^[0-9a-f]{64}$/) });

    // The portal's part: a file for that request, encrypted for the device.
    const now = Math.floor(Date.now() / 1000);
    const licenseFile = join(home, 'license-from-the-portal.lic');
    writeFileSync(licenseFile, `${await mintLicenseFile(key, { appId, ...asked, now, encrypt: true })}\n`);
    const loaded = await runProgram(file, home, ['load', licenseFile]);
    expect(loaded).toMatchObject({ code: 0, stderr: '', stdout: `license file installed, valid until ${new Date((now + 30 * 86_400) * 1000).toISOString()}\n` });

    expect(await runProgram(file, home)).toMatchObject({ code: 0, stderr: '', stdout: 'licensed (Pro) by LICENSE_FILE_VALID\n' });

    const returned = await runProgram(file, home, ['return']);
    expect(returned).toMatchObject({ code: 0, stderr: '' });
    const code = /^return code: (lfx1\.\S+)\n$/.exec(returned.stdout)?.[1];
    expect(decodeCode(code!, 'lfx1.')).toEqual({ app_id: appId, license: 'AIR-GAPPED-KEY', hwid: asked.hwid, jti: expect.any(String) });
    expect(await runProgram(file, home)).toMatchObject({ code: 1, stderr: 'not licensed: NETWORK_ERROR\n' });
  }, 120_000);

  it('the trial program starts a trial once, keeps its key and checks with it, and says when the trial has ended', async () => {
    const key = await testSigningKey();
    const appId = randomUUID();
    const standIn = await startSignedStandIn(key);
    try {
      const now = Math.floor(Date.now() / 1000);
      const trialData = { ...licenseData('TRIAL-KEY', 'device', now, { expires_at: new Date((now + 14 * 86_400) * 1000).toISOString() }), license: 'TRIAL-KEY' };
      standIn.answers.set('/trial', { status: 200, body: { success: true, message: 'TRIAL_STARTED', data: trialData } });
      standIn.answers.set('/auth', (body) => ({ status: 200, body: { success: true, message: 'LICENSE_VERIFIED_USED_AND_LOCKED_KEY', data: { ...trialData, key: body.license } } }));
      const file = program(trial!, { url: standIn.url, appId, pem: key.pem });
      const home = mkdtempSync(join(workDir, 'home-'));

      const first = await runProgram(file, home);
      expect(first).toMatchObject({ code: 0, stderr: '', stdout: `TRIAL_STARTED: trial until ${trialData.expires_at}\nlicensed (Pro) until ${trialData.expires_at}\n` });
      expect(readFileSync(join(home, '.my-app', 'license-key'), 'utf8')).toBe('TRIAL-KEY');
      const second = await runProgram(file, home);
      expect(second).toMatchObject({ code: 0, stdout: `licensed (Pro) until ${trialData.expires_at}\n` });
      expect(standIn.seen.map((request) => `${request.path} ${String(request.body.license ?? request.body.hwid)}`)).toEqual([
        `/trial ${String(standIn.seen[0]!.body.hwid)}`,
        '/auth TRIAL-KEY',
        '/auth TRIAL-KEY',
      ]);

      standIn.answers.set('/trial', { status: 403, body: { success: false, message: 'TRIAL_EXPIRED', data: { expires_at: trialData.expires_at } } });
      expect(await runProgram(file, mkdtempSync(join(workDir, 'home-')))).toMatchObject({ code: 1, stdout: '', stderr: 'not licensed: TRIAL_EXPIRED\n' });
    } finally {
      await standIn.close();
    }
  }, 120_000);

  it('the quick start checks a license, keeps its offline token in the home folder, and refuses a paused one', async () => {
    const license = await seedLicense(env.deps, subscription);
    const result = await run(quickStart!, license.key);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(/^licensed until \d{4}-\d\d-\d\dT/);
    expect(existsSync(join(result.home, '.my-app', 'license.token'))).toBe(true);

    const paused = await seedLicense(env.deps, subscription, { status: 'paused' });
    const refused = await run(quickStart!, paused.key);
    expect(refused).toMatchObject({ code: 1, stdout: '', stderr: 'not licensed: LICENSE_NOT_ACTIVE\n' });
  }, 120_000);

  it('the floating-seat example holds a seat, gives it back, then borrows it', async () => {
    const license = await seedLicense(env.deps, subscription, { hwid_lock: true, max_devices: 1, lease_seconds: 600 });
    const result = await run(`${quickStart}\n${floatingSeats}`, license.key);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(/^licensed until .+\nseat held until .+\nseat borrowed until .+\n$/);
    const record = (await env.post('/license/get', { license_key: license.key }, owner.auth)).body.data;
    expect(record.leases).toMatchObject([{ borrowed: true }]);
  }, 120_000);

  it('the devices and usage example counts usage, resets the device and logs in by username', async () => {
    const license = await seedLicense(env.deps, subscription, { hwid_lock: true });
    const result = await run(`${quickStart}\n${devicesAndUsage}`, license.key);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(/^licensed until .+\n9 exports left\nlogged in, licensed until .+\n$/);
    const record = (await env.post('/license/get', { license_key: license.key }, owner.auth)).body.data;
    expect(record).toMatchObject({ username: 'alice', usage: [{ counter: 'exports', used: 1 }] });
    expect(record.last_hwid_reset_at).not.toBeNull();
  }, 120_000);
});
