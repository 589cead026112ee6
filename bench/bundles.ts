import { execFile } from 'node:child_process';
import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { authorizerEntry, groups, handlerEntry } from '../functions/routes';
import { lambdaBundling } from '../lib/bundling';

const run = promisify(execFile);

export interface BundleResult {
  bytes: number;
  init_ms: number;
}

/**
 * A fresh Node process imports the bundle and answers one event that needs no
 * store (a preflight; a request without API key for the authorizer): module
 * load and first-call cost, which is what a cold start adds to a user's wait.
 */
const probe = `
const [file, kind] = process.argv.slice(1);
const started = performance.now();
const { handler } = await import(file);
const event = kind === 'authorizer'
  ? { type: 'REQUEST', methodArn: 'arn:aws:execute-api:r:a:api/prod/POST/x', headers: {} }
  : { resource: '/auth', path: '/auth', httpMethod: 'OPTIONS', headers: {}, body: null, requestContext: { requestId: 'r', identity: { sourceIp: '127.0.0.1' } } };
try { await handler(event, { getRemainingTimeInMillis: () => 3000 }); } catch {}
process.stdout.write(String(performance.now() - started));
`;

export async function measureBundles(root: string, runs: number): Promise<Record<string, BundleResult>> {
  const outDir = join(root, 'bench', '.out');
  mkdirSync(outDir, { recursive: true });
  const entries = [...groups.map((group) => [group, handlerEntry(group)] as const), ['authorizer', authorizerEntry] as const];
  const results: Record<string, BundleResult> = {};
  for (const [name, entry] of entries) {
    const outfile = join(outDir, `${name}.mjs`);
    await build({ ...lambdaBundling.esbuild, entryPoints: [join(root, entry)], outfile, logLevel: 'silent' });
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      const { stdout } = await run(process.execPath, ['--input-type=module', '-e', probe, outfile, name], {
        cwd: root,
        env: { ...process.env, AWS_REGION: 'us-east-1', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', LOG_LEVEL: 'silent' },
      });
      times.push(Number(stdout));
    }
    times.sort((a, b) => a - b);
    results[name] = { bytes: statSync(outfile).size, init_ms: Math.round(times[Math.floor(times.length / 2)]! * 10) / 10 };
  }
  return results;
}
