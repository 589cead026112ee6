import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { newLicenseKey } from '#core/ids';
import { authorizerEntry, groups, handlerEntry, type Group } from '../functions/routes';
import { lambdaBuildOptions } from '../lib/bundling';
import type { DeployedFunction } from './deployed-stack';
import { startKmsStub } from './kms-stub';
import { median, round } from './stats';

const run = promisify(execFile);

export interface BundleResult {
  /** index.mjs: what a cold start reads and compiles before its first request. */
  bytes: number;
  /** index.mjs and every chunk beside it, loaded on first need. */
  bytes_all: number;
  /** The `NODE_OPTIONS` the samples ran under: the deployed function's, read from the synthesized stack. */
  node_options?: string;
  init_ms: number;
  /** Set on bundles that carry the KMS client: they are judged against `bundles_reference_kms`. */
  reference?: 'kms';
}

export interface BundleMeasurement {
  bundles: Record<string, BundleResult>;
  /** The reference handler (reference-stack.ts), measured in the same loop; `node` is the version every sample ran on. */
  reference: BundleResult & { node: string };
  /** The reference plus a KMS client sending one Decrypt to a local stub, measured in the same loop. */
  referenceKms: BundleResult;
  /** The AWS SDK alone, no yardstick: what the HTTP and validation libraries add shows against it. */
  referenceSdk: BundleResult;
}

/** Lambda's runtime is nodejs22.x; this build of it comes from the npm registry, no root needed. */
const lambdaNodeVersion = '22.23.3';

/**
 * The Node the samples run on: this one when it is already 22, otherwise Node
 * 22 from the npm package node-<platform>-<arch> (installed once under
 * bench/.out, not as a dependency: its `node` bin would shadow the machine's
 * Node in every npm script), and this one when that cannot be had (offline, a
 * platform without such a package).
 */
async function lambdaNode(outDir: string, log: (message: string) => void): Promise<{ path: string; version: string }> {
  if (process.versions.node.startsWith('22.')) return { path: process.execPath, version: process.version };
  const name = `node-${process.platform}-${process.arch}`;
  const prefix = join(outDir, 'node22');
  const path = join(prefix, 'node_modules', name, 'bin', 'node');
  try {
    if (!existsSync(path)) {
      log(`installing ${name}@${lambdaNodeVersion} under bench/.out for Node 22 samples`);
      mkdirSync(prefix, { recursive: true });
      await run('npm', ['install', '--prefix', prefix, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', `${name}@${lambdaNodeVersion}`], {
        timeout: 300_000,
      });
    }
    const { stdout } = await run(path, ['--version']);
    return { path, version: stdout.trim() };
  } catch (error) {
    log(`no Node 22 (${error instanceof Error ? error.message.split('\n')[0] : String(error)}): sampling on ${process.version}`);
    return { path: process.execPath, version: process.version };
  }
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
    app: { event: proxyEvent('/app/list', {}, teamId), expect: 200 },
    webhook: { event: proxyEvent('/webhook/list', { app_id: randomUUID() }, teamId), expect: 404 },
    integration: { event: proxyEvent('/integration/stripe/get', { app_id: randomUUID() }, teamId), expect: 404 },
    portal: { event: proxyEvent('/portal/app', { app_id: randomUUID() }), expect: 403 },
    authorizer: {
      event: { type: 'REQUEST', methodArn: 'arn:aws:execute-api:r:a:api/prod/POST/license/get', headers: { 'x-api-key': `lsk_${'x'.repeat(43)}` } },
      expect: 'Deny',
    },
  };
}

/**
 * Builds each Lambda as it is deployed, and the reference handlers with the
 * same options, then times fresh Node processes that import a bundle and answer
 * one event against the store: what a cold start adds to the first caller's wait
 * (Node's own boot excluded). Every round samples the reference and each bundle
 * once, starting one place further each round, so a busy moment of a shared
 * machine weighs on all of them alike.
 */
export async function measureBundles(
  root: string,
  store: { endpoint: string; tableName: string },
  runs: number,
  log: (message: string) => void,
  deployed: Record<Group | 'authorizer', Pick<DeployedFunction, 'nodeOptions'>>,
): Promise<BundleMeasurement> {
  const outDir = join(root, 'bench', '.out');
  mkdirSync(outDir, { recursive: true });
  const node = await lambdaNode(outDir, log);
  const probes: Record<string, { event: unknown; expect: number | string }> = {
    ...probeEvents(),
    reference: { event: proxyEvent('/reference', { key: 'REFERENCE' }), expect: 404 },
    reference_kms: { event: proxyEvent('/reference', { key: 'REFERENCE' }), expect: 404 },
    reference_sdk: { event: {}, expect: 404 },
  };
  const entries = [
    ['reference', join('bench', 'reference-handler.ts')] as const,
    ['reference_kms', join('bench', 'reference-kms-handler.ts')] as const,
    ['reference_sdk', join('bench', 'reference-sdk-handler.ts')] as const,
    ...groups.map((group) => [group, handlerEntry(group)] as const),
    ['authorizer', authorizerEntry] as const,
  ];
  const outfiles = new Map<string, string>();
  for (const [name, entry] of entries) {
    // A fresh folder: chunk names carry their content's hash, so an earlier build's would stay beside this one.
    rmSync(join(outDir, name), { recursive: true, force: true });
    await build({ ...lambdaBuildOptions(root, entry, join(outDir, name)), logLevel: 'silent' });
    outfiles.set(name, join(outDir, name, 'index.mjs'));
  }
  // The references are yardsticks and run with no options; each function runs with its deployed ones.
  const nodeOptionsOf = (name: string) => (name.startsWith('reference') ? undefined : deployed[name as Group | 'authorizer'].nodeOptions);
  const kms = await startKmsStub();
  const sample = async (name: string): Promise<number> => {
    const { stdout } = await run(node.path, [join(root, 'bench', 'probe.mjs'), outfiles.get(name)!, JSON.stringify(probes[name]!.event)], {
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
        SIGNING_KMS_KEY_ID: kms.keyId,
        KMS_ENDPOINT: kms.endpoint,
        // The webhook bundle builds its SQS client at start; listing sends nothing to it.
        WEBHOOK_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/000000000000/unused',
        ...(nodeOptionsOf(name) === undefined ? {} : { NODE_OPTIONS: nodeOptionsOf(name) }),
      },
    });
    const answer = JSON.parse(stdout) as { ms: number; status: number | string };
    if (answer.status !== probes[name]!.expect) throw new Error(`${name} bundle answered ${answer.status}, expected ${probes[name]!.expect}`);
    return answer.ms;
  };
  const names = entries.map(([name]) => name);
  const times = new Map<string, number[]>(names.map((name) => [name, []]));
  try {
    for (let pass = 0; pass < runs; pass++) {
      for (let i = 0; i < names.length; i++) {
        const name = names[(pass + i) % names.length]!;
        times.get(name)!.push(await sample(name));
      }
    }
  } finally {
    await kms.close();
  }
  const files = (name: string) =>
    readdirSync(join(outDir, name), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.mjs'))
      .map((file) => join(outDir, name, file));
  // The KMS client's protocol name is in a bundle's files exactly when the bundle carries the client, in index.mjs or a chunk.
  const carriesKms = (name: string) => files(name).some((file) => readFileSync(file, 'utf8').includes('TrentService'));
  const result = (name: string): BundleResult => ({
    bytes: statSync(outfiles.get(name)!).size,
    bytes_all: files(name).reduce((sum, file) => sum + statSync(file).size, 0),
    ...(nodeOptionsOf(name) === undefined ? {} : { node_options: nodeOptionsOf(name) }),
    init_ms: round(median(times.get(name)!)),
    ...(!name.startsWith('reference') && carriesKms(name) ? { reference: 'kms' as const } : {}),
  });
  return {
    bundles: Object.fromEntries(names.filter((name) => !name.startsWith('reference')).map((name) => [name, result(name)])),
    reference: { ...result('reference'), node: node.version },
    referenceKms: result('reference_kms'),
    referenceSdk: result('reference_sdk'),
  };
}
