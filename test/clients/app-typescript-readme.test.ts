import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Subscription } from '#data/model/subscription';
import { startTestServer, type TestServer } from '../support/env';
import { seedLicense, seedSubscription } from '../support/fixtures';
import { createOwner, type Owner } from '../support/owners';

/**
 * Runs the TypeScript examples of clients/app-typescript/README.md as a program
 * would: each in its own process (tsx), against the local server, with the
 * page's placeholders (service URL, app id, public key, license key) replaced by
 * real ones and the package name by its source.
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

let programs = 0;
async function run(code: string, licenseKey: string) {
  const home = mkdtempSync(join(workDir, 'home-'));
  let program = replaceOnce(code, "'@licensing-service/app-client'", JSON.stringify(join(packageDir, 'src', 'index.ts')));
  program = replaceOnce(program, "'https://licensing.example.com'", JSON.stringify(env.server.url));
  program = replaceOnce(program, "'3f0c7f2e-4b1a-4c55-9d7e-0b7f1c2d3e4f'", JSON.stringify(owner.app_id));
  program = replaceOnce(program, /`-----BEGIN PUBLIC KEY-----[\s\S]*?-----END PUBLIC KEY-----`/, JSON.stringify(pem));
  program = replaceOnce(program, "'7K2QX-M4TZP-9W3RD-HV8NB-C6YJE'", JSON.stringify(licenseKey));
  const file = join(workDir, `program-${(programs += 1)}.mts`);
  writeFileSync(file, program);
  return new Promise<{ code: number; stdout: string; stderr: string; home: string }>((done) => {
    execFile(tsx, [file], { env: { ...process.env, HOME: home, USERPROFILE: home }, timeout: 60_000 }, (error, stdout, stderr) =>
      done({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr, home }),
    );
  });
}

const [quickStart, floatingSeats, devicesAndUsage] = blocks;

describe('the examples of clients/app-typescript/README.md', () => {
  it('are the quick start and the two that continue it', () => {
    expect(blocks).toHaveLength(3);
    expect(quickStart).toContain('client.check(');
    expect(floatingSeats).toContain('startHeartbeat(');
    expect(devicesAndUsage).toContain('recordUsage(');
  });

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
