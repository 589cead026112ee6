import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const projectRoot = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The X-Ray middleware names on the DynamoDB client of a Lambda's deps, built in a
 * fresh Node process: loading the X-Ray SDK turns on async_hooks process-wide, which
 * must not leak into the jest worker that runs the next test files.
 */
function xrayMiddlewareOfLambdaDeps(tracing: string | undefined): string[] {
  const script = `
    const { lambdaDepsFromEnv } = await import('#core/deps');
    const deps = await lambdaDepsFromEnv();
    console.log(JSON.stringify(deps.table.doc.middlewareStack.identify().filter((name) => name.includes('XRay'))));`;
  const { TRACING: _unset, ...env } = process.env;
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: projectRoot,
    env: { ...env, NODE_OPTIONS: '', AWS_REGION: 'us-east-1', ...(tracing === undefined ? {} : { TRACING: tracing }) },
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout) as string[];
}

describe('X-Ray capture of the DynamoDB client', () => {
  it('adds the X-Ray SDK middleware to a Lambda’s client when TRACING is on', () => {
    expect(xrayMiddlewareOfLambdaDeps('true')).toEqual(['XRaySDKInstrumentation - build']);
  });

  it('leaves the client alone without TRACING, as locally and in tests', () => {
    expect(xrayMiddlewareOfLambdaDeps(undefined)).toEqual([]);
    expect(xrayMiddlewareOfLambdaDeps('false')).toEqual([]);
  });
});
