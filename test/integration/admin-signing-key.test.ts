import { execFile } from 'node:child_process';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createDeps } from '#core/deps';
import { loadMasterKey, localKeyVault } from '#core/key-vault';
import { startLocalServer, type LocalServer } from '../../local/server';
import { createTestEnv, type TestEnv } from '../support/env';
import { docsVerifier, postRaw, type PublicJwk } from '../support/verifier';
import * as apps from '#data/app.repo';

const run = promisify(execFile);
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dataDir = join(mkdtempSync(join(tmpdir(), 'admin-signing-')), 'data');

let env: TestEnv;
let server: LocalServer;
const outputs: string[] = [];

beforeAll(async () => {
  env = await createTestEnv({ config: { cacheTtlSeconds: 0 } });
  // The server decrypts with the master key the CLI made in DATA_DIR, as `npm start` beside `npm run admin` does.
  const deps = createDeps(env.config, { client: env.client, keyVault: localKeyVault(loadMasterKey(dataDir)) });
  server = await startLocalServer({ deps, port: 0 });
});
afterAll(async () => {
  await server.close();
  env.deps.table.doc.destroy();
});

async function admin(...args: string[]): Promise<string> {
  const port = new URL(env.config.dynamodbEndpoint!).port;
  const { stdout, stderr } = await run(join(root, 'node_modules', '.bin', 'tsx'), [join(root, 'bin', 'admin.ts'), ...args], {
    cwd: root,
    env: { ...process.env, DYNAMODB_PORT: port, TABLE_NAME: env.config.tableName, DATA_DIR: dataDir },
  });
  outputs.push(stdout, stderr);
  return stdout;
}

describe('the admin CLI and signing keys', () => {
  it('creates apps with a key, shows it, rotates it, and never prints the private key', async () => {
    const { app_id } = JSON.parse(await admin('bootstrap', '--json')) as { app_id: string };
    expect(statSync(join(dataDir, 'master.key')).mode & 0o777).toBe(0o600);

    const shown = JSON.parse(await admin('app', 'signing-key', '--app', app_id, '--json')) as { key_id: string; jwk: PublicJwk };
    expect(Object.keys(shown).sort()).toEqual(['algorithm', 'app_id', 'created_at', 'jwk', 'key_id', 'public_key', 'public_key_pem']);
    const { verifyAnswer } = await docsVerifier();
    const before = await postRaw(server.url, '/auth', { app_id, license: 'NOPE-NOPE' });
    expect(() => verifyAnswer(before, { jwk: shown.jwk })).not.toThrow();

    const rotated = JSON.parse(await admin('app', 'rotate-signing-key', '--app', app_id, '--json')) as { key_id: string; jwk: PublicJwk };
    expect(rotated.key_id).not.toBe(shown.key_id);
    const after = await postRaw(server.url, '/auth', { app_id, license: 'NOPE-NOPE' });
    expect(() => verifyAnswer(after, { jwk: rotated.jwk })).not.toThrow();
    expect(() => verifyAnswer(after, { jwk: shown.jwk })).toThrow();

    const text = await admin('app', 'signing-key', '--app', app_id);
    expect(text).toContain(`key_id: ${rotated.key_id}`);
    expect(text).toContain('-----BEGIN PUBLIC KEY-----');

    const app = (await apps.get(env.deps.table, app_id))!;
    const pkcs8 = Buffer.from(await localKeyVault(loadMasterKey(dataDir)).decrypt(app_id, app.signing_key!.private_key_ciphertext));
    const seed = pkcs8.subarray(pkcs8.length - 32);
    const printed = outputs.join('\n');
    for (const bytes of [pkcs8, seed]) {
      for (const form of [bytes.toString('base64'), bytes.toString('base64url'), bytes.toString('hex')]) expect(printed).not.toContain(form);
    }
    expect(printed).not.toContain(app.signing_key!.private_key_ciphertext);
    expect(printed).not.toContain('private');
  });

  it('fails clearly for an unknown app', async () => {
    await expect(admin('app', 'rotate-signing-key', '--app', '00000000-0000-4000-8000-000000000000', '--json')).rejects.toMatchObject({
      stderr: expect.stringContaining('No app 00000000-0000-4000-8000-000000000000'),
    });
  });
});
