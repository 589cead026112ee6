import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { startLocalStore } from '../local/store';

/**
 * `npm test`: one in-memory DynamoDB Local for the whole run (each test file makes
 * its own table on it), jest with its endpoint, and the store stopped whatever
 * jest's outcome. The store's watchdog kills Java even if this process is killed.
 *
 * A whole run (no jest arguments given but `--maxWorkers=N`) then runs the checks of
 * `test/after-run/` over what every test file recorded (test/support/evidence.ts):
 * they judge the run as a whole, so a run of a few files skips them.
 * The run ends with a plain `N passed, N failed` line, which CI reads whatever the runner.
 * `TEST_EVIDENCE_DIR` set beforehand keeps the records there (and leaves them), so a
 * run of a few files can be judged by hand: `npm test -- --config jest.after-run.config.js`.
 */
const require = createRequire(import.meta.url);
const jestBin = join(dirname(require.resolve('jest')), '..', 'bin', 'jest.js');

const workDir = mkdtempSync(join(tmpdir(), 'licensing-jest-'));
const evidenceDir = process.env.TEST_EVIDENCE_DIR || mkdtempSync(join(workDir, 'evidence-'));
const args = process.argv.slice(2);
const workersArg = (arg: string) => /^--maxWorkers=/.test(arg);
const wholeRun = args.every(workersArg);

interface Results {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
}

const store = await startLocalStore({ port: 0 });
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => running?.kill(signal));
let running: ReturnType<typeof spawn> | undefined;

async function runJest(name: string, jestArgs: string[]): Promise<{ code: number; results?: Results }> {
  const resultsFile = join(workDir, `${name}.json`);
  running = spawn(process.execPath, ['--experimental-vm-modules', '--no-warnings', jestBin, '--json', `--outputFile=${resultsFile}`, ...jestArgs], {
    stdio: 'inherit',
    env: {
      ...process.env,
      DYNAMODB_ENDPOINT: store.endpoint,
      TEST_EVIDENCE_DIR: evidenceDir,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
  });
  const child = running;
  const code = await new Promise<number>((done) => child.once('exit', (exitCode, signal) => done(exitCode ?? (signal ? 1 : 0))));
  return { code, results: existsSync(resultsFile) ? (JSON.parse(readFileSync(resultsFile, 'utf8')) as Results) : undefined };
}

/**
 * As many test files at once as there are cores, not jest's default of one fewer: the files wait on the store, their
 * servers, browsers and compilers more than they compute. On two cores, with other work beside it, one worker kept less
 * than one core busy and took 30 minutes over the files; two took 19. A `--maxWorkers=N` given on the command line wins.
 */
const workers = args.some(workersArg) ? [] : [`--maxWorkers=${availableParallelism()}`];
const runs = [await runJest('suite', [...workers, ...args])];
if (wholeRun) runs.push(await runJest('after-run', ['--config', 'jest.after-run.config.js']));
await store.stop();

const total = (field: keyof Results) => runs.reduce((sum, run) => sum + (run.results?.[field] ?? 0), 0);
if (runs.some((run) => run.results)) {
  process.stdout.write(`\ntests: ${total('numPassedTests')} passed, ${total('numFailedTests')} failed, ${total('numPendingTests')} skipped\n`);
}
rmSync(workDir, { recursive: true, force: true });
process.exit(runs.find((run) => run.code !== 0)?.code ?? 0);
