import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startTestServer, type TestServer } from '../support/env';
import { seedLicense, seedSubscription } from '../support/fixtures';
import { createOwner, type Owner } from '../support/owners';

/**
 * The tarball `npm pack` makes of clients/app-typescript, installed in a
 * program of its own: loaded as an ES module and by require(), each verifying
 * a live answer and its offline token, and type-checked from both kinds of module.
 */
const run = promisify(execFile);
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const packageDir = join(root, 'clients', 'app-typescript');
const consumer = mkdtempSync(join(tmpdir(), 'app-client-consumer-'));

let env: TestServer;
let owner: Owner;
let pem: string;
let packed: { filename: string; files: { path: string }[] };

beforeAll(async () => {
  env = await startTestServer();
  owner = await createOwner(env.deps);
  pem = (await env.post('/app/signing-key', { app_id: owner.app_id }, owner.auth)).body.data.public_key_pem;
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', consumer], { cwd: packageDir, timeout: 150_000 });
  // npm prints the build's own output before its JSON.
  packed = (JSON.parse(stdout.slice(stdout.indexOf('\n[') + 1)) as (typeof packed)[])[0]!;
  const installed = join(consumer, 'node_modules', '@licensing-service', 'app-client');
  mkdirSync(installed, { recursive: true });
  await run('tar', ['-xzf', join(consumer, packed.filename), '-C', installed, '--strip-components=1']);
  // What `npm install` of the tarball would add: its dependency, and Node's types for the type check.
  symlinkSync(join(root, 'node_modules', 'jose'), join(consumer, 'node_modules', 'jose'));
  symlinkSync(join(root, 'node_modules', '@types'), join(consumer, 'node_modules', '@types'));
}, 180_000);
afterAll(() => env.close());

const program = (load: string) => `${load}
const client = new LicenseClient({ url: process.env.URL, appId: process.env.APP_ID, publicKey: process.env.PEM, tokenFile: process.env.TOKEN_FILE });
client.check({ license: process.env.LICENSE, hwid: 'packed' }).then((result) => console.log(JSON.stringify({ message: result.message, token: typeof result.data.offline_token })));
`;

describe('the packed app client', () => {
  it('holds the ES modules, the CommonJS build, their declarations and the README, and nothing else', () => {
    const files = packed.files.map((file) => file.path);
    expect(files).toEqual(expect.arrayContaining(['package.json', 'README.md', 'dist/esm/index.js', 'dist/esm/index.d.ts', 'dist/cjs/index.js', 'dist/cjs/index.d.ts', 'dist/cjs/package.json']));
    expect(files.filter((file) => !file.startsWith('dist/') && file !== 'package.json' && file !== 'README.md')).toEqual([]);
  });

  it.each([
    ['an ES module', 'program.mjs', "import { LicenseClient } from '@licensing-service/app-client';"],
    ['CommonJS', 'program.cjs', "const { LicenseClient } = require('@licensing-service/app-client');"],
  ])('verifies a live answer and its offline token when loaded from %s', async (_kind, name, load) => {
    const license = await seedLicense(env.deps, await seedSubscription(env.deps, owner));
    writeFileSync(join(consumer, name), program(load));
    const { stdout } = await run(process.execPath, [join(consumer, name)], {
      cwd: consumer,
      timeout: 60_000,
      env: { ...process.env, URL: env.server.url, APP_ID: owner.app_id, PEM: pem, LICENSE: license.key, TOKEN_FILE: join(consumer, `${name}.token`) },
    });
    expect(JSON.parse(stdout)).toEqual({ message: 'LICENSE_VERIFIED_UNUSED_AND_UNLOCKED_KEY', token: 'string' });
  });

  it('type-checks from an ES module and from CommonJS, and types a wrong call as an error', async () => {
    const use = (load: string) => `${load}
const client = new LicenseClient({ url: 'https://licensing.example.com', appId: '3f0c7f2e-4b1a-4c55-9d7e-0b7f1c2d3e4f', publicKey: { kty: 'OKP', crv: 'Ed25519', x: 'x' } });
export async function start(): Promise<string | null> {
  try {
    const result = await client.check({ license: 'KEY', hwid: await client.machineId() });
    return result.offline ? result.data.sub : result.data.key;
  } catch (error) {
    return error instanceof LicenseError ? error.code : null;
  }
}
export async function airGappedAndTrial(): Promise<string> {
  const offlineOnly = new LicenseClient({ appId: '3f0c7f2e-4b1a-4c55-9d7e-0b7f1c2d3e4f', publicKey: 'PEM', stateDir: '/tmp/state' });
  const { request, link } = await offlineOnly.activationRequest({ license: 'KEY', hwid: 'pc', encrypt: true, portalUrl: 'https://portal.example.com' });
  const { exp, data, air_gapped } = await offlineOnly.loadLicenseFile(request);
  const trial = await client.startTrial({ hwid: 'pc' });
  return [link, exp, data.subscription_name, air_gapped, await offlineOnly.returnCode({ license: 'KEY', hwid: 'pc' }), trial.data.license].join();
}
`;
    writeFileSync(join(consumer, 'esm.mts'), use("import { LicenseClient, LicenseError } from '@licensing-service/app-client';"));
    writeFileSync(join(consumer, 'cjs.cts'), use("import { LicenseClient, LicenseError } from '@licensing-service/app-client';"));
    writeFileSync(
      join(consumer, 'wrong.mts'),
      "import { LicenseClient } from '@licensing-service/app-client';\nnew LicenseClient({ url: 'u', appId: 'a', publicKey: 'k' }).check({ hwid: 'no credentials' });\n",
    );
    const compilerOptions = { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', strict: true, noEmit: true, types: ['node'] };
    writeFileSync(join(consumer, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['esm.mts', 'cjs.cts', 'wrong.mts'] }));
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    const output = await run(process.execPath, [tsc, '-p', consumer], { timeout: 150_000 }).then(
      () => '',
      (error: { stdout: string }) => error.stdout,
    );
    const errors = output.split('\n').filter((line) => /error TS\d+/.test(line));
    expect(errors).toEqual([expect.stringMatching(/wrong\.mts\(2,\d+\): error TS2345/)]);
  }, 180_000);
});
