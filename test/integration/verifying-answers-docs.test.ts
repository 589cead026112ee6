import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startTestServer, type TestServer } from '../support/env';
import { seedLicense, seedSubscription } from '../support/fixtures';
import { createOwner, type Owner } from '../support/owners';
import { examplesDir, pythonWithModules, type PublicJwk } from '../support/verifier';

const run = promisify(execFile);
const docsPage = readFileSync(join(examplesDir, '..', 'verifying-answers.md'), 'utf8');

const python = pythonWithModules();
if (!python) {
  process.stderr.write('SKIPPED: the Python verifying example needs python3 with cryptography and PyJWT (apt-get install python3-cryptography python3-jwt)\n');
}

let env: TestServer;
let owner: Owner;
let jwk: PublicJwk;
let otherJwk: PublicJwk;

beforeAll(async () => {
  env = await startTestServer();
  owner = await createOwner(env.deps);
  const other = await createOwner(env.deps);
  const keyOf = async (of: Owner) => ((await env.post('/app/signing-key', { app_id: of.app_id }, of.auth)).body as { data: { jwk: PublicJwk } }).data.jwk;
  jwk = await keyOf(owner);
  otherJwk = await keyOf(other);
});
afterAll(() => env.close());

async function example(command: string, file: string, key: PublicJwk) {
  const license = await seedLicense(env.deps, await seedSubscription(env.deps, owner));
  const { stdout } = await run(command, [join(examplesDir, file)], {
    timeout: 30_000,
    env: { ...process.env, BASE_URL: env.server.url, APP_ID: owner.app_id, LICENSE: license.key, PUBLIC_JWK: JSON.stringify(key) },
  });
  return { license, result: JSON.parse(stdout) as { verified: boolean; status: number; message: string; claims: Record<string, unknown> } };
}

const examples: [name: string, command: string, file: string][] = [
  ['Node', process.execPath, 'verify-answer.mjs'],
  ...(python ? [['Python', python, 'verify_answer.py'] as [string, string, string]] : []),
];

describe('the "Verifying answers" page', () => {
  it('shows the very example files the tests run', () => {
    for (const file of ['verify-answer.mjs', 'verify_answer.py']) expect(docsPage).toContain(readFileSync(join(examplesDir, file), 'utf8'));
  });

  it.each(examples)('%s example verifies a live signed answer and its offline token from the public key alone', async (_name, command, file) => {
    const { license, result } = await example(command, file, jwk);
    expect(result).toMatchObject({ verified: true, status: 200, message: 'LICENSE_VERIFIED_UNUSED_AND_UNLOCKED_KEY' });
    expect(result.claims).toMatchObject({ iss: owner.app_id, sub: license.key, hwid: null, hwids: [] });
    expect(typeof result.claims.nonce).toBe('string');
  });

  it.each(examples)('%s example rejects the answer under another application’s key', async (_name, command, file) => {
    await expect(example(command, file, { ...otherJwk, kid: jwk.kid })).rejects.toMatchObject({ code: 1 });
  });
});
