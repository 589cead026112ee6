import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { newLicenseKey } from '#core/ids';
import { authorizerEntry, groups, handlerEntry, type Group } from '../functions/routes';
import { esbuildOptions } from '../lib/bundling';
import { median, round } from './stats';

const run = promisify(execFile);

export interface BundleResult {
  bytes: number;
  init_ms: number;
}

function proxyEvent(path: string, body: unknown, teamId?: string) {
  return {
    resource: path,
    path,
    httpMethod: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    isBase64Encoded: false,
    requestContext: {
      requestId: 'probe',
      identity: { sourceIp: '127.0.0.1' },
      ...(teamId ? { authorizer: { team_id: teamId } } : {}),
    },
  };
}

/**
 * One real request per bundle that has to ask the store (an unknown app,
 * license or API key), so the sample pays for everything the first request of
 * a cold Lambda pays for: module load, client construction, the first
 * connection and DynamoDB call, validation and the answer.
 */
function probeEvents(): Record<Group | 'authorizer', { event: unknown; expect: number | string }> {
  const teamId = randomUUID();
  return {
    client: { event: proxyEvent('/auth', { app_id: randomUUID(), license: newLicenseKey() }), expect: 403 },
    license: { event: proxyEvent('/license/get', { license_key: newLicenseKey() }, teamId), expect: 404 },
    hwid: { event: proxyEvent('/hwid/toggle-lock', { license_key: newLicenseKey() }, teamId), expect: 404 },
    subscription: { event: proxyEvent('/subscription/get-bulk', { app_id: randomUUID() }, teamId), expect: 404 },
    blacklist: { event: proxyEvent('/blacklist/get-bulk', { app_id: randomUUID() }, teamId), expect: 404 },
    authorizer: {
      event: { type: 'REQUEST', methodArn: 'arn:aws:execute-api:r:a:api/prod/POST/license/get', headers: { 'x-api-key': `lsk_${'x'.repeat(43)}` } },
      expect: 'Deny',
    },
  };
}

/**
 * Builds each Lambda as it is deployed, then times fresh Node processes that
 * import the bundle and answer one probe event against the store: what a cold
 * start adds to the first caller's wait (Node's own boot excluded).
 */
export async function measureBundles(root: string, store: { endpoint: string; tableName: string }, runs: number): Promise<Record<string, BundleResult>> {
  const outDir = join(root, 'bench', '.out');
  mkdirSync(outDir, { recursive: true });
  const probes = probeEvents();
  const entries = [...groups.map((group) => [group, handlerEntry(group)] as const), ['authorizer', authorizerEntry] as const];
  const results: Record<string, BundleResult> = {};
  for (const [name, entry] of entries) {
    const outfile = join(outDir, name, 'index.mjs');
    await build({ ...esbuildOptions(root), entryPoints: [join(root, entry)], outfile, logLevel: 'silent' });
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      const { stdout } = await run(process.execPath, [join(root, 'bench', 'probe.mjs'), outfile, JSON.stringify(probes[name].event)], {
        cwd: root,
        timeout: 30_000,
        env: {
          PATH: process.env.PATH,
          // What the Lambda runtime sets, plus the local store.
          AWS_REGION: 'us-east-1',
          AWS_ACCESS_KEY_ID: 'local',
          AWS_SECRET_ACCESS_KEY: 'local',
          AWS_SESSION_TOKEN: 'local',
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
          TABLE_NAME: store.tableName,
          DYNAMODB_ENDPOINT: store.endpoint,
          LOG_LEVEL: 'warn',
        },
      });
      const sample = JSON.parse(stdout) as { ms: number; status: number | string };
      if (sample.status !== probes[name].expect) throw new Error(`${name} bundle answered ${sample.status}, expected ${probes[name].expect}`);
      times.push(sample.ms);
    }
    results[name] = { bytes: statSync(outfile).size, init_ms: round(median(times)) };
  }
  return results;
}
