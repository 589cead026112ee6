import { execFile, execFileSync } from 'node:child_process';
import { createHash, generateKeyPairSync, hkdfSync, randomUUID } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { calculateJwkThumbprint, CompactEncrypt, SignJWT } from 'jose';
import { startLocalServer, type LocalServer } from '../../local/server';
import { startTestServer, type TestServer } from '../support/env';
import { startInterceptingProxy, type Intercepted, type InterceptingProxy, type SeenRequest } from '../support/intercepting-proxy';
import { createOwner, type Owner } from '../support/owners';

/**
 * Runs the Python client's own unittest suite (clients/app-python/tests) with
 * Debian's /usr/bin/python3 against the local server on loopback, and through the
 * intercepting proxy of test/support, which the Python tests steer: it alters status, body,
 * signature or nonce, replays an old answer, relays another license, loses
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

type Mode =
  | 'pass'
  | 'status'
  | 'status-5xx'
  | 'body'
  | 'body-redigest'
  | 'signature'
  | 'strip'
  | 'nonce-request'
  | 'nonce-answer'
  | 'replay'
  | 'relay'
  | 'gateway-502'
  | 'rate-limited'
  | 'lose-answer';

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const digestOf = (body: string) => `sha-256=:${createHash('sha256').update(body).digest('base64')}:`;
const signed = ['content-digest', 'signature-input', 'signature'];

/** The proxy's alterations of a genuine answer, each one a forger's attempt. */
function alter(mode: Mode, answer: Answer): Answer {
  const headers = { ...answer.headers };
  switch (mode) {
    case 'status':
      return { ...answer, status: answer.status === 200 ? 403 : 200 };
    case 'status-5xx':
      return { ...answer, status: 503 };
    case 'body':
    case 'body-redigest': {
      const body = answer.body.includes('"success":false')
        ? answer.body.replace('"success":false', '"success":true')
        : `{"forged":true,${answer.body.slice(1).replace(/"subscription_level":\d+/, '"subscription_level":99')}`;
      if (mode === 'body-redigest') headers['content-digest'] = digestOf(body);
      return { status: 200, headers, body };
    }
    case 'signature': {
      const raw = Buffer.from(/sig1=:([^:]*):/.exec(headers.signature ?? '')?.[1] ?? '', 'base64');
      raw[0] = (raw[0] ?? 0) ^ 1;
      headers.signature = `sig1=:${raw.toString('base64')}:`;
      return { ...answer, headers };
    }
    case 'strip':
      for (const name of signed) delete headers[name];
      return { ...answer, headers };
    case 'nonce-answer':
      headers['signature-input'] = (headers['signature-input'] ?? '').replace(/;nonce="[^"]*"/, ';nonce="replaced-by-the-proxy"');
      return { ...answer, headers };
    default:
      return answer;
  }
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Intercepted => ({
  status,
  headers: { 'content-type': 'application/json', ...headers },
  body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
});

/**
 * The intercepting proxy of test/support in front of the service, steered by the Python tests through
 * `POST /__control/*`: `mode` ({mode, times?, license?}: the next `times` requests, or all until the next
 * mode), `log` (the request bodies forwarded since the last mode) and `server` ({running}).
 */
async function startSteeredProxy(upstream: string, setRunning: (running: boolean) => Promise<void>): Promise<InterceptingProxy> {
  const proxy = await startInterceptingProxy(upstream);
  let mode: Mode = 'pass';
  let times = Infinity;
  let relayLicense = '';
  let log: unknown[] = [];
  const last = new Map<string, Answer>();
  // Each request is handled in the mode that was current when it arrived, through every hook it passes.
  const modeOf = new WeakMap<SeenRequest, Mode>();

  const control = async (path: string, body: Record<string, unknown>): Promise<Intercepted> => {
    if (path === '/__control/mode') {
      mode = body.mode as Mode;
      times = typeof body.times === 'number' ? body.times : Infinity;
      relayLicense = String(body.license ?? '');
      log = [];
    } else if (path === '/__control/server') {
      await setRunning(body.running === true);
    } else if (path !== '/__control/log') {
      return json(404, {});
    }
    return json(200, { log });
  };

  proxy.respond = async (request) => {
    const path = request.path.split('?')[0]!;
    if (path.startsWith('/__control/')) return control(path, request.body ? (JSON.parse(request.body) as Record<string, unknown>) : {});
    const current = times > 0 ? mode : 'pass';
    times -= 1;
    modeOf.set(request, current);
    if (current === 'replay' && last.has(path)) {
      const replayed = last.get(path)!;
      return { ...replayed, body: Buffer.from(replayed.body) };
    }
    if (current === 'gateway-502') return json(502, '{"message":"Bad Gateway"}');
    if (current === 'rate-limited') {
      log.push(JSON.parse(request.body));
      return json(429, '{"success":false,"message":"RATE_LIMITED"}', { 'retry-after': '1' });
    }
    return undefined;
  };
  proxy.rewrite = (request) => {
    const current = modeOf.get(request);
    log.push(JSON.parse(request.body));
    if (current !== 'nonce-request' && current !== 'relay') return request;
    const parsed = JSON.parse(request.body) as Record<string, unknown>;
    if (current === 'nonce-request') parsed.nonce = `proxy-${String(parsed.nonce)}`;
    else parsed.license = relayLicense;
    const body = JSON.stringify(parsed);
    return { ...request, body, headers: { ...request.headers, 'content-digest': digestOf(body) } };
  };
  proxy.tamper = (intercepted, request) => {
    const answer: Answer = { ...intercepted, body: intercepted.body.toString('utf8') };
    last.set(request.path.split('?')[0]!, answer);
    const current = modeOf.get(request) ?? 'pass';
    if (current === 'lose-answer') return json(504, '{"message":"Endpoint request timed out"}');
    const altered = alter(current, answer);
    return { ...altered, body: Buffer.from(altered.body) };
  };
  return proxy;
}

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

let env: TestServer;
let owner: Owner;
let server: LocalServer | undefined;
let proxy: InterceptingProxy;
let key: { jwk: Record<string, unknown>; public_key_pem: string };

beforeAll(async () => {
  env = await startTestServer();
  owner = await createOwner(env.deps);
  key = (await env.post('/app/signing-key', { app_id: owner.app_id }, owner.auth)).body.data;
  // Stoppable and restartable on the same port: the Python tests' "service unreachable" is a stopped server.
  await env.server.close();
  server = await startLocalServer({ deps: env.deps, port: env.server.port });
  const setRunning = async (running: boolean) => {
    if (!running && server) {
      await server.close();
      server = undefined;
    } else if (running && !server) {
      server = await startLocalServer({ deps: env.deps, port: env.server.port });
    }
  };
  proxy = await startSteeredProxy(env.server.url, setRunning);
}, 60_000);

afterAll(async () => {
  await proxy?.close();
  await server?.close();
  env.deps.table.doc.destroy();
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
          LICENSING_URL: env.server.url,
          LICENSING_PROXY_URL: proxy.url,
          LICENSING_APP_ID: owner.app_id,
          LICENSING_API_KEY: owner.api_key,
          LICENSING_PUBLIC_JWK: JSON.stringify(key.jwk),
          LICENSING_PUBLIC_KEY_PEM: key.public_key_pem,
          LICENSING_JOSE_FILES: JSON.stringify(await joseLicenseFiles()),
        },
      }).catch((failure: { stdout?: string; stderr?: string; message: string }) => {
        throw new Error(`python unittest failed:\n${failure.stderr ?? ''}\n${failure.stdout ?? failure.message}`);
      });
      const ran = Number(/^Ran (\d+) tests? in /m.exec(result.stderr)?.[1] ?? 0);
      expect(result.stderr).toMatch(/^OK$/m);
      expect(ran).toBeGreaterThanOrEqual(84);
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
