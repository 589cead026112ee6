import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../local/store';
import { alive, descendants, npmStart } from '../support/processes';

/**
 * `npm start` stopped the way a process supervisor, a container runtime or `kill <pid>`
 * stops it: SIGTERM to npm alone, not to its whole process group as Ctrl-C in a
 * terminal does. The server and its embedded DynamoDB Local must stop with it, not
 * go on holding their ports and the data directory.
 */
const running: ChildProcess[] = [];
let dataDir: string;

beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'licensing-stop-'));
});
afterAll(async () => {
  for (const child of running) {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // The group is gone already: what the test wants.
    }
  }
  rmSync(dataDir, { recursive: true, force: true });
});

it('stops the server and its embedded store when npm alone gets SIGTERM', async () => {
  // Under `npm test` the run's own store is named here; this `npm start` must embed one, as a newcomer's does.
  const { DYNAMODB_ENDPOINT: _runStore, ...env } = process.env;
  const started = await npmStart({ ...env, DATA_DIR: dataDir, PORT: '0', DYNAMODB_PORT: String(await freePort()), LOG_LEVEL: 'silent' }, running);
  const below = await descendants(started.child.pid!);
  expect(below.some(({ args }) => args.includes('bin/local.ts'))).toBe(true);
  expect(below.some(({ args }) => args.includes('DynamoDBLocal.jar'))).toBe(true);

  const exited = new Promise((done) => started.child.once('exit', done));
  started.child.kill('SIGTERM');
  await exited;
  const deadline = Date.now() + 20_000;
  let left = below.filter(({ pid }) => alive(pid));
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    left = left.filter(({ pid }) => alive(pid));
  }
  expect(left.map(({ args }) => args)).toEqual([]);
}, 120_000);
