import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { machineFingerprint } from '../../clients/app-typescript/src/machine-id';
import { describeNativeExamples, describeNativeLicenseFiles, describeNativeLicenseFilesOnService } from '../support/native-license-files';
import { runProgram } from '../support/run-program';
import { startSteeredService, type SteeredService } from '../support/steered-service';

/**
 * Runs the Go library's own test suite (clients/go) with Debian's Go against the
 * local server on loopback, and through the intercepting proxy of
 * test/support/steered-service.ts, which the Go tests steer: it alters status, body,
 * signature or nonce, replays an old answer, relays another license, answers as a
 * gateway, loses answers, and stops and restarts the server. The Go tests also build
 * and run the README's example programs. Then the license-file and trial cases
 * every native library shares (test/support/native-license-files.ts) through the
 * module's driver, against a signed stand-in and against the local server, and
 * the README's air-gapped and trial examples. Nothing reaches the network: no
 * module proxy, no toolchain download (the module needs only the standard
 * library).
 */

const run = promisify(execFile);
const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
const project = join(root, 'clients', 'go');
const go = '/usr/bin/go';

function missingGo(): string | undefined {
  try {
    execFileSync(go, ['version'], { stdio: 'ignore', timeout: 20_000 });
    return undefined;
  } catch {
    return `${go} (apt-get install golang-go)`;
  }
}
const missing = missingGo();
if (missing) process.stderr.write(`SKIPPED: the Go client tests need ${missing}\n`);
const whenGo = (name: string, test: () => Promise<void>, timeout: number) => (missing ? it.skip(`${name} (skipped: needs ${missing})`, test) : it(name, test, timeout));

let service: SteeredService | undefined;
// One build cache for the run, so the suite compiles the package once and the examples reuse it.
const work = mkdtempSync(join(tmpdir(), 'go-client-'));
const goEnvironment = () => ({
  ...process.env,
  GOCACHE: join(work, 'cache'),
  GOPATH: join(work, 'path'),
  GOFLAGS: '-mod=mod',
  GOPROXY: 'off',
  GOSUMDB: 'off',
  GOTOOLCHAIN: 'local',
  GOWORK: 'off',
});

beforeAll(async () => {
  service = await startSteeredService();
}, 60_000);

afterAll(async () => {
  await service?.close();
  rmSync(work, { recursive: true, force: true });
});

const failed = (command: string) => (failure: { stdout?: string; stderr?: string; message: string }) => {
  throw new Error(`${command} failed:\n${failure.stderr ?? ''}\n${failure.stdout ?? failure.message}`);
};

describe('the Go client library (clients/go)', () => {
  whenGo(
    'passes go vet and its go test suite against the local server and an intercepting proxy',
    async () => {
      const vetted = await run(go, ['vet', './...'], { cwd: project, timeout: 180_000, env: goEnvironment() }).catch(failed('go vet'));
      expect(vetted.stdout + vetted.stderr).toBe('');

      const result = await run(go, ['test', '-count=1', '-v', '-timeout', '240s', './...'], {
        cwd: project,
        timeout: 300_000,
        maxBuffer: 16 * 1024 * 1024,
        env: {
          ...goEnvironment(),
          ...service!.variables,
          // The TypeScript library's value on this machine, for this application: the Go one must be the same.
          LICENSING_TS_MACHINE_ID: await machineFingerprint(service!.owner.app_id),
        },
      }).catch(failed('go test'));
      expect(result.stdout).toMatch(/^ok\s+licensing-service\/clients\/go\s/m);
      expect(result.stdout).not.toMatch(/^\s*--- (FAIL|SKIP)/m);
      const passed = result.stdout.match(/^--- PASS: /gm)?.length ?? 0;
      expect(passed).toBeGreaterThanOrEqual(53);
    },
    480_000,
  );
});

const binaries = join(work, 'bin');
let builtPrograms: { stdout: string; stderr: string } | undefined;
beforeAll(async () => {
  if (missing) return;
  builtPrograms = await run(go, ['build', '-o', `${binaries}/`, './internal/filesdriver', './examples/airgapped', './examples/trial'], { cwd: project, timeout: 300_000, env: goEnvironment() }).catch(
    failed('go build'),
  );
}, 320_000);
const program = (name: string) => (args: string[], env: Record<string, string>) => runProgram(join(binaries, name), args, { env, timeout: 60_000 });

if (!missing) {
  describe('the Go driver and examples', () => {
    it('build', () => expect(builtPrograms).toEqual({ stdout: '', stderr: '' }));
  });
  describeNativeLicenseFiles('Go', () => ({ run: program('filesdriver'), check: (ran) => expect(ran.stderr).toBe('') }));
  describeNativeLicenseFilesOnService('Go', () => ({ run: program('filesdriver'), check: (ran) => expect(ran.stderr).toBe('') }), () => service!);
  describeNativeExamples('Go', () => ({
    airGapped: program('airgapped'),
    trial: (env) => program('trial')([], env),
    readme: join(project, 'README.md'),
    sources: [join(project, 'examples', 'airgapped', 'main.go'), join(project, 'examples', 'trial', 'main.go')],
  }));
}
