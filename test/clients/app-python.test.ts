import { execFile, execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
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
        },
      }).catch((failure: { stdout?: string; stderr?: string; message: string }) => {
        throw new Error(`python unittest failed:\n${failure.stderr ?? ''}\n${failure.stdout ?? failure.message}`);
      });
      const ran = Number(/^Ran (\d+) tests? in /m.exec(result.stderr)?.[1] ?? 0);
      expect(result.stderr).toMatch(/^OK$/m);
      expect(ran).toBeGreaterThanOrEqual(52);
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
