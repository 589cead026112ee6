import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { startLocalStore } from '../local/store';

/**
 * `npm test`: one in-memory DynamoDB Local for the whole run (each test file makes
 * its own table on it), jest with its endpoint, and the store stopped whatever
 * jest's outcome. The store's watchdog kills Java even if this process is killed.
 * The run ends with a plain `N passed, N failed` line, which CI reads whatever the runner.
 */
const require = createRequire(import.meta.url);
const jestBin = join(dirname(require.resolve('jest')), '..', 'bin', 'jest.js');

const resultsDir = mkdtempSync(join(tmpdir(), 'licensing-jest-'));
const resultsFile = join(resultsDir, 'results.json');

const store = await startLocalStore({ port: 0 });
const jestArgs = [jestBin, '--json', `--outputFile=${resultsFile}`, ...process.argv.slice(2)];
const jest = spawn(process.execPath, ['--experimental-vm-modules', '--no-warnings', ...jestArgs], {
  stdio: 'inherit',
  env: { ...process.env, DYNAMODB_ENDPOINT: store.endpoint, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => jest.kill(signal));
const code = await new Promise<number>((done) => jest.once('exit', (exitCode, signal) => done(exitCode ?? (signal ? 1 : 0))));
await store.stop();
if (existsSync(resultsFile)) {
  const results = JSON.parse(readFileSync(resultsFile, 'utf8')) as { numPassedTests: number; numFailedTests: number; numPendingTests: number };
  process.stdout.write(`\ntests: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${results.numPendingTests} skipped\n`);
}
rmSync(resultsDir, { recursive: true, force: true });
process.exit(code);
