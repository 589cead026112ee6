import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { readConfig } from '#core/config';
import { createDeps, type Deps } from '#core/deps';
import { localKeyVault } from '#core/key-vault';
import { bootstrap } from '../functions/admin/owners';
import { startLocalServer } from '../local/server';
import { ensureTable, startLocalStore } from '../local/store';
import { checkInvariants, scanAll } from '../test/support/invariants';

/**
 * `npm run soak [-- --seconds N --concurrency C]`: a mixed, contended load of
 * /auth, /register and management calls against the local server (loopback
 * only, bounded in time and requests), then an invariant check over the whole
 * table. Exits non-zero on any 5xx or broken invariant.
 */
const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '120' },
    concurrency: { type: 'string', default: '16' },
    'max-requests': { type: 'string', default: '200000' },
  },
});
const seconds = Number(values.seconds);
const concurrency = Number(values.concurrency);
const maxRequests = Number(values['max-requests']);

const store = await startLocalStore({ port: 0 });
const config = { ...readConfig(), tableName: 'soak', dynamodbEndpoint: store.endpoint, logLevel: 'error' as const, bcryptCost: 4 };
await ensureTable(store.client, config.tableName);
const deps: Deps = createDeps(config, { client: store.client, keyVault: localKeyVault(randomBytes(32)) });
const server = await startLocalServer({ deps, port: 0 });
const owner = await bootstrap(deps);
const auth = { 'x-api-key': owner.api_key, 'content-type': 'application/json' };

const statuses = new Map<number, number>();
const byRoute = new Map<string, Map<number, number>>();
let requests = 0;
const serverErrors: string[] = [];

async function call(path: string, body: unknown, headers: Record<string, string> = { 'content-type': 'application/json' }) {
  requests++;
  const response = await fetch(`${server.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  const text = await response.text();
  statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
  const routeStatuses = byRoute.get(path) ?? new Map<number, number>();
  routeStatuses.set(response.status, (routeStatuses.get(response.status) ?? 0) + 1);
  byRoute.set(path, routeStatuses);
  if (response.status >= 500) serverErrors.push(`${path} ${response.status} ${text.slice(0, 200)}`);
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, any>) : {} };
}

async function createSubscription(singleKey: boolean): Promise<string> {
  const answer = await call('/subscription/create', { app_id: owner.app_id, name: singleKey ? 'Single' : 'Shared', level: 1, single_key_per_hwid: singleKey }, auth);
  return answer.body.data.subscription_id as string;
}

async function createLicenses(subscriptionId: string, amount: number, hwidLock: boolean): Promise<string[]> {
  const answer = await call(
    '/license/create-bulk',
    { key_amount: amount, app_id: owner.app_id, subscription_id: subscriptionId, duration_unit: 'days', duration_value: 30, hwid_lock: hwidLock, tags: ['soak'] },
    auth,
  );
  return (answer.body.data as { key: string }[]).map((license) => license.key);
}

const single = await createSubscription(true);
const shared = await createSubscription(false);
const keys = [...(await createLicenses(single, 100, true)), ...(await createLicenses(shared, 100, false))];
const created = new Set(keys);
const deleted = new Set<string>();
const passwords = new Map<string, string>();

/** Small pools make requests collide: the invariants only mean something under contention. */
const hwids = Array.from({ length: 30 }, (_, i) => `device-${i}`);
const usernames = Array.from({ length: 30 }, (_, i) => `user${i}`);
const requestIds = Array.from({ length: 5 }, () => randomUUID());
const pick = <T>(list: readonly T[]): T => list[randomInt(list.length)]!;

const operations: [number, () => Promise<unknown>][] = [
  [40, () => call('/auth', { app_id: owner.app_id, license: pick(keys), hwid: pick(hwids) })],
  [10, async () => {
    const username = pick(usernames);
    const password = `password-${randomInt(3)}`;
    const answer = await call('/register', { app_id: owner.app_id, license: pick(keys), username, password });
    if (answer.status === 200) passwords.set(username, password);
  }],
  [10, () => {
    const username = pick(usernames);
    return call('/auth', { app_id: owner.app_id, username, password: passwords.get(username) ?? 'password-0', hwid: pick(hwids) });
  }],
  [8, async () => {
    const answer = await call('/license/create', { app_id: owner.app_id, subscription_id: pick([single, shared]), duration_unit: 'days', duration_value: 1, hwid_lock: true }, auth);
    if (answer.status === 200) {
      created.add(answer.body.data.key as string);
      keys.push(answer.body.data.key as string);
    }
  }],
  [6, () => call('/license/extend-bulk', { license_keys: [pick(keys), pick(keys)], extend_seconds: 60, request_id: pick(requestIds) }, auth)],
  [6, () => call('/hwid/edit', { license_key: pick(keys), hwid: randomInt(2) ? null : pick(hwids) }, auth)],
  [5, () => call('/license/update-status', { license_key: pick(keys), status: pick(['active', 'paused']) }, auth)],
  [5, () => call('/license/update-user-credentials', { license_key: pick(keys), username: pick(usernames), password: 'password-9' }, auth)],
  [4, () => call('/hwid/toggle-lock', { license_key: pick(keys) }, auth)],
  [3, async () => {
    const key = pick(keys);
    const answer = await call('/license/delete', { license_key: key }, auth);
    if (answer.status === 200) deleted.add(key);
  }],
  [3, () => call('/license/get-bulk', { app_id: owner.app_id, per_page: 50 }, auth)],
  [4, () => call('/reset-hwid', { app_id: owner.app_id, license: pick(keys), ...(randomInt(2) ? { hwid: pick(hwids) } : {}) })],
  [3, () => call('/hwid/set-max-devices', { license_key: pick(keys), max_devices: 1 + randomInt(4) }, auth)],
  [2, () => call('/hwid/remove', { license_key: pick(keys), hwid: pick(hwids) }, auth)],
  [2, () => call('/license/update-subscription', { license_key: pick(keys), subscription_id: pick([single, shared]) }, auth)],
];
const totalWeight = operations.reduce((sum, [weight]) => sum + weight, 0);

function randomOperation(): () => Promise<unknown> {
  let roll = randomInt(totalWeight);
  for (const [weight, operation] of operations) {
    if (roll < weight) return operation;
    roll -= weight;
  }
  throw new Error('unreachable');
}

const started = Date.now();
const deadline = started + seconds * 1000;
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (Date.now() < deadline && requests < maxRequests) await randomOperation()();
  }),
);
const elapsed = (Date.now() - started) / 1000;

const violations = checkInvariants(await scanAll(deps.table), { created: [...created].filter((key) => !deleted.has(key)) });

const sortedCounts = (counts: Map<number, number>) => Object.fromEntries([...counts].sort(([a], [b]) => a - b));
const report = {
  seconds: Math.round(elapsed),
  concurrency,
  requests,
  requests_per_second: Math.round(requests / elapsed),
  statuses: sortedCounts(statuses),
  statuses_by_route: Object.fromEntries([...byRoute].sort(([a], [b]) => a.localeCompare(b)).map(([path, counts]) => [path, sortedCounts(counts)])),
  server_errors: serverErrors.length,
  licenses_created: created.size,
  licenses_deleted: deleted.size,
  invariant_violations: violations.length,
  machine: { cpus: cpus().length, load_average_1m: Number(loadavg()[0]!.toFixed(2)) },
};
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
for (const line of [...serverErrors.slice(0, 10), ...violations.slice(0, 20)]) process.stdout.write(`  ${line}\n`);

await server.close();
await store.stop();
process.exit(serverErrors.length === 0 && violations.length === 0 ? 0 : 1);
