import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { startLocalStore } from '../local/store';

/**
 * `npm test`: one in-memory DynamoDB Local for the whole run (each test file makes
 * its own table on it), jest with its endpoint, and the store stopped whatever
 * jest's outcome. The store's watchdog kills Java even if this process is killed.
 */
const require = createRequire(import.meta.url);
const jestBin = join(dirname(require.resolve('jest')), '..', 'bin', 'jest.js');

const store = await startLocalStore({ port: 0 });
const jest = spawn(process.execPath, ['--experimental-vm-modules', '--no-warnings', jestBin, ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: { ...process.env, DYNAMODB_ENDPOINT: store.endpoint, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => jest.kill(signal));
const code = await new Promise<number>((done) => jest.once('exit', (exitCode, signal) => done(exitCode ?? (signal ? 1 : 0))));
await store.stop();
process.exit(code);
