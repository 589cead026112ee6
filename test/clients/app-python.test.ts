import { execFile, execFileSync } from 'node:child_process';
import { generateKeyPairSync, hkdfSync, randomUUID } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { calculateJwkThumbprint, CompactEncrypt, SignJWT } from 'jose';
import { machineFingerprint } from '../../clients/app-typescript/src/machine-id';
import { startSteeredService, type SteeredService } from '../support/steered-service';

/**
 * Runs the Python client's own unittest suite (clients/app-python/tests) with
 * Debian's /usr/bin/python3 against the local server on loopback, and through the
 * intercepting proxy of test/support/steered-service.ts, which the Python tests steer: it alters
 * status, body, signature or nonce, replays an old answer, relays another license, loses
 * answers, and stops and restarts the server. Also builds the wheel and sdist.
 */

const run = promisify(execFile);
const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
const project = join(root, 'clients', 'app-python');
const python = '/usr/bin/python3';

/** What this machine lacks of `modules` ([module, Debian package]), named; undefined when everything is there. */
function missingForPython(modules: [string, string][]): string | undefined {
  try {
    execFileSync(python, ['--version'], { stdio: 'ignore', timeout: 20_000 });
  } catch {
    return `${python} (apt-get install python3)`;
  }
  const missing = modules.filter(([module]) => {
    try {
      execFileSync(python, ['-c', `import ${module}`], { stdio: 'ignore', timeout: 20_000 });
      return false;
    } catch {
      return true;
    }
  });
  return missing.length ? `Python modules ${missing.map(([module, pkg]) => `${module} (apt-get install ${pkg})`).join(', ')}` : undefined;
}

const runtime: [string, string][] = [
  ['cryptography', 'python3-cryptography'],
  ['jwt', 'python3-jwt'],
];
const missing = missingForPython(runtime);
const missingToBuild = missingForPython([...runtime, ['pip', 'python3-pip'], ['setuptools', 'python3-setuptools'], ['wheel', 'python3-wheel']]);
if (missing) process.stderr.write(`SKIPPED: the Python client tests need ${missing}\n`);
else if (missingToBuild) process.stderr.write(`SKIPPED: building the Python client's wheel and sdist needs ${missingToBuild}\n`);
const whenPython = (name: string, test: () => Promise<void>, timeout: number) => (missing ? it.skip(`${name} (skipped: needs ${missing})`, test) : it(name, test, timeout));
const whenBuildable = (name: string, test: () => Promise<void>, timeout: number) =>
  missingToBuild ? it.skip(`${name} (skipped: needs ${missingToBuild})`, test) : it(name, test, timeout);

/**
 * A license file made with jose, signed and encrypted, for the Python library to
 * read: the same format from the library the service makes files with.
 */
async function joseLicenseFiles() {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const { x } = publicKey.export({ format: 'jwk' }) as { x: string };
  const made = { app_id: randomUUID(), public_jwk: { kty: 'OKP', crv: 'Ed25519', x }, license: 'JOSE-KEY', hwid: 'jose-device', nonce: 'jose-request-nonce' };
  const now = Math.floor(Date.now() / 1000);
  const data = { key: made.license, subscription_name: 'Pro', subscription_level: 1, expires_at: null, hwids: [made.hwid] };
  const claims = { iss: made.app_id, sub: made.license, hwid: made.hwid, hwids: [made.hwid], iat: now, nbf: now, exp: now + 86_400, jti: randomUUID(), nonce: made.nonce, data, air_gapped: true };
  const kid = await calculateJwkThumbprint(made.public_jwk);
  const signed = await new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', kid, typ: 'license+jwt' }).sign(privateKey);
  const secret = new Uint8Array(hkdfSync('sha256', Buffer.from(made.license), Buffer.from(made.hwid), Buffer.from('license-file'), 32));
  const encrypted = await new CompactEncrypt(new TextEncoder().encode(signed)).setProtectedHeader({ alg: 'dir', enc: 'A256GCM', cty: 'license+jwt' }).encrypt(secret);
  return { ...made, signed, encrypted };
}

let service: SteeredService | undefined;

beforeAll(async () => {
  service = await startSteeredService();
}, 60_000);

afterAll(async () => {
  await service?.close();
});

describe('the Python client library (clients/app-python)', () => {
  whenPython(
    'passes its unittest suite against the local server and an intercepting proxy',
    async () => {
      const result = await run(python, ['-m', 'unittest', 'discover', '-v', '-s', join(project, 'tests'), '-t', join(project, 'tests')], {
        cwd: project,
        timeout: 300_000,
        maxBuffer: 16 * 1024 * 1024,
        env: {
          ...process.env,
          PYTHONPATH: join(project, 'src'),
          PYTHONDONTWRITEBYTECODE: '1',
          // urllib honours proxy variables: loopback must never leave through one.
          NO_PROXY: '127.0.0.1,localhost',
          no_proxy: '127.0.0.1,localhost',
          ...service!.variables,
          LICENSING_JOSE_FILES: JSON.stringify(await joseLicenseFiles()),
          LICENSING_EXPECTED_MACHINE_ID: await machineFingerprint(service!.variables.LICENSING_APP_ID!),
        },
      }).catch((failure: { stdout?: string; stderr?: string; message: string }) => {
        throw new Error(`python unittest failed:\n${failure.stderr ?? ''}\n${failure.stdout ?? failure.message}`);
      });
      const ran = Number(/^Ran (\d+) tests? in /m.exec(result.stderr)?.[1] ?? 0);
      expect(result.stderr).toMatch(/^OK$/m);
      expect(ran).toBeGreaterThanOrEqual(104);
      expect(result.stderr).not.toMatch(/skipped/);
    },
    360_000,
  );

  whenBuildable(
    'builds as a wheel and an sdist offline with Debian’s pip and setuptools',
    async () => {
      const work = mkdtempSync(join(tmpdir(), 'app-python-build-'));
      try {
        const copy = join(work, 'project');
        cpSync(project, copy, { recursive: true, filter: (source) => !/(__pycache__|\.egg-info|[\\/]build)$/.test(source) });
        const out = join(work, 'dist');
        await run(python, ['-m', 'pip', 'wheel', '--no-deps', '--no-build-isolation', '--no-index', '--no-cache-dir', '-w', out, '.'], { cwd: copy, timeout: 120_000 });
        await run(python, ['-c', 'import sys, setuptools.build_meta as backend; backend.build_sdist(sys.argv[1])', out], { cwd: copy, timeout: 120_000 });
        expect(readdirSync(out).sort()).toEqual(['licensing-client-0.1.0.tar.gz', 'licensing_client-0.1.0-py3-none-any.whl']);
        const listed = await run(python, ['-c', 'import sys, zipfile; print("\\n".join(zipfile.ZipFile(sys.argv[1]).namelist()))', join(out, 'licensing_client-0.1.0-py3-none-any.whl')]);
        expect(listed.stdout).toContain('licensing_client/client.py');
        expect(listed.stdout).toContain('licensing_client/py.typed');
        expect(listed.stdout).toMatch(/METADATA/);
      } finally {
        rmSync(work, { recursive: true, force: true });
      }
    },
    180_000,
  );
});
