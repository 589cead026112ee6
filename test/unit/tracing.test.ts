import { execSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { xrayChunk, xrayChunkCommand } from '../../lib/bundling';

const projectRoot = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The X-Ray middleware names on the DynamoDB client, in a fresh Node process:
 * loading the X-Ray SDK turns on async_hooks process-wide, which must not leak
 * into the jest worker that runs the next test files. `setup` is the script's
 * part that makes `client`.
 */
function xrayMiddlewareNames(setup: string, env: Record<string, string> = {}): string[] {
  const script = `${setup}
    console.log(JSON.stringify(client.middlewareStack.identify().filter((name) => name.includes('XRay'))));`;
  const { TRACING: _unset, ...inherited } = process.env;
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: projectRoot,
    env: { ...inherited, NODE_OPTIONS: '', AWS_REGION: 'us-east-1', ...env },
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout) as string[];
}

describe('X-Ray capture of the DynamoDB client', () => {
  let chunkDir: string;
  beforeAll(() => {
    chunkDir = mkdtempSync(join(tmpdir(), 'xray-chunk-'));
    execSync(xrayChunkCommand(projectRoot, chunkDir));
  });
  afterAll(() => rmSync(chunkDir, { recursive: true, force: true }));

  it('adds the X-Ray SDK middleware from the chunk built beside a bundle', () => {
    const chunk = pathToFileURL(join(chunkDir, xrayChunk.file)).href;
    const names = xrayMiddlewareNames(`
      const { DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
      const { traceDynamoClient } = await import('#core/tracing');
      const client = await traceDynamoClient(new DynamoDBClient({}), new URL(${JSON.stringify(chunk)}));`);
    expect(names).toEqual(['XRaySDKInstrumentation - build']);
  });

  it('leaves a Lambda’s client alone without TRACING, as locally and in tests', () => {
    const setup = `
      const { lambdaDepsFromEnv } = await import('#core/deps');
      const client = (await lambdaDepsFromEnv()).table.doc;`;
    expect(xrayMiddlewareNames(setup)).toEqual([]);
    expect(xrayMiddlewareNames(setup, { TRACING: 'false' })).toEqual([]);
  });
});
