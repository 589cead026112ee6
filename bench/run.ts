import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Clock } from '#shared/clock';
import { readConfig, type Config } from '#core/config';
import { createDeps } from '#core/deps';
import { localKeyVault } from '#core/key-vault';
import { outboxMailer } from '#core/mail/outbox';
import { createLogger } from '#core/logger';
import { hashPassword, verifyPassword } from '#core/domain/passwords';
import { createDynamoClient } from '#data/db';
import * as owners from '../functions/admin/owners';
import { meterDynamo } from '../local/ddb-meter';
import { measureWriteRoutes, renderWriteRoutes } from './write-routes';
import { localSink } from '../functions/events/sinks';
import { startLocalEventStream } from '../local/event-stream';
import { startWebhookBench } from './webhooks';
import { startLocalServer } from '../local/server';
import { ensureTable, startLocalStore } from '../local/store';
import { baselineRequests, baselineTransactionRequests, startBaselineServer } from './baseline';
import { measureBundles, type BundleMeasurement, type BundleResult } from './bundles';
import { deployedStack } from './deployed-stack';
import type { CostPerMillion } from './cost';
import { costBudgets, costSection, renderCostSection, type ServedSample } from './cost-report';
import { logCapture } from './log-capture';
import { measurePortalLicenses, portalBudgets, type PortalUnits } from './portal';
import { appStatsBudgets, measureAppStatsUnits, measureScale, renderScale, scaleBudgets, type AppStatsUnits, type ScaleContext, type ScaleResult } from './scale';
import { runLoad, type LoadRequest, type LoadResult } from './load';
import { median, round } from './stats';

/**
 * `npm run bench [-- --quick]`: the cost of every /auth and of the bulk
 * management calls on a local stack (DynamoDB Local, the local server, loopback
 * only), written to bench/results.json and bench/results.md; `--update-docs`
 * also puts the tables into docs/performance.md.
 */
const usage =
  'npm run bench [-- [--quick] [--scale [N]] [--update-docs]]\n  --quick        shorter runs\n  --scale [N]    also seed an app of N licenses (default 200000) and one of 1000, and compare their figures\n  --update-docs  also write the tables between the bench markers of docs/performance.md\n';
const defaultScaleLicenses = 200_000;
/** The seeding of --scale stops the run past this: at the default size it takes a few minutes on a 2-core machine. */
const maxSeedSeconds = 900;
let options: { quick?: boolean; 'update-docs'?: boolean; help?: boolean; scale?: string };
try {
  // A bare --scale takes the default size.
  const args = process.argv.slice(2).flatMap((arg, i, all) => (arg === '--scale' && !/^\d/.test(all[i + 1] ?? '') ? [arg, String(defaultScaleLicenses)] : [arg]));
  // Strict: a mistyped or retired flag (--update-readme) would otherwise cost a whole run that silently skips what was asked.
  options = parseArgs({ args, options: { quick: { type: 'boolean' }, 'update-docs': { type: 'boolean' }, help: { type: 'boolean' }, scale: { type: 'string' } }, strict: true }).values;
  if (options.scale !== undefined && !(Number.isInteger(Number(options.scale)) && Number(options.scale) >= 2000)) throw new Error(`--scale takes a whole number of licenses, at least 2000, got ${options.scale}`);
} catch (error) {
  process.stderr.write(`${(error as Error).message}\nusage: ${usage}`);
  process.exit(2);
}
if (options.help) {
  process.stdout.write(usage);
  process.exit(0);
}
const quick = options.quick === true;
const plan = quick
  ? { seconds: 3, slowSeconds: 5, amount: 4000, bulkAmount: 32, meterSamples: 10, bulkMeterSamples: 1, bundleRuns: 25, bcryptRuns: 3, warmLicenses: 1000, pairedRounds: 5 }
  : { seconds: 10, slowSeconds: 20, amount: 30000, bulkAmount: 32, meterSamples: 100, bulkMeterSamples: 4, bundleRuns: 33, bcryptRuns: 10, warmLicenses: 4000, pairedRounds: 3 };
const concurrencies = [1, 32] as const;
/** The routes whose throughput budget is a share of /auth by key's requests/s: each is measured in rounds beside it. */
const comparedWithAuth = ['auth_license_signed', 'auth_floating', 'license_file', 'license_file_encrypted', 'usage', 'trial_resumed'] as const;
/**
 * Requests of a second or more under 32 connections (bulk writes of 1000; bcrypt at cost 10 is ~100 ms of CPU
 * and 32 of them share two cores): those runs get the time for each connection to finish some. A --quick run drives the two bulk
 * writes with 4 connections, not 32: 32 of them are 32,000 item writes, minutes on DynamoDB Local.
 */
/** A heartbeat on a floating license against /auth by key in the same run (docs/licensing-models.md, "What it costs"). */
const floatingBudgetRatio = 0.8;
const licenseFileBudgetRatio = 0.8;
const slow = new Set(['auth_credentials', 'register', 'create_bulk', 'get_bulk', 'extend_bulk']);
const bulkWrites = new Set(['create_bulk', 'extend_bulk']);
const concurrenciesOf = (name: string) => (quick && bulkWrites.has(name) ? [1, 4] : concurrencies);
/** How much slower than its reference handler a bundle's cold start may be: a ratio measured in one run means the same on any machine, milliseconds do not. */
const initBudgetRatio = 1.15;
/** The client function answers every /auth: its cold start is held closer. */
const clientInitBudgetRatio = 1.1;
const initBudgetOf = (name: string) => (name === 'client' ? clientInitBudgetRatio : initBudgetRatio);
/** Signing may cost /auth at most a tenth of its throughput. */
const signedBudgetRatio = 0.9;
/** A resumed trial is an /auth of the device's trial license, whose key its application names (client/trial.ts). */
const trialBudgetRatio = 0.8;

/** Two decimals: a ratio is read against 1.25. */
const ratio = (value: number, reference: number) => Math.round((value / reference) * 100) / 100;

const root = join(import.meta.dirname, '..');
const started = Date.now();

function progress(message: string) {
  process.stderr.write(`[bench ${((Date.now() - started) / 1000).toFixed(0)}s, load ${loadavg()[0]!.toFixed(2)}] ${message}\n`);
}

/** The system clock, moved forward by hand so a sample can start with every cache entry expired. */
function steppableClock(): Clock & { skip(seconds: number): void } {
  let offsetMs = 0;
  return { now: () => new Date(Date.now() + offsetMs), skip: (seconds) => (offsetMs += seconds * 1000) };
}

const loadAverageAtStart = loadavg();
const store = await startLocalStore({ port: 0 });
const stopStore = () => store.stop();
process.once('SIGINT', () => void stopStore().then(() => process.exit(130)));

try {
  const base = readConfig();
  const config: Config = { ...base, tableName: 'bench', dynamodbEndpoint: store.endpoint, region: 'local', debug: false };
  await ensureTable(store.client, config.tableName);
  const client = createDynamoClient(config);
  const meter = meterDynamo(client);
  const clock = steppableClock();
  // Lines are formatted as on Lambda and counted while a metered request is served, then dropped: the table on stdout is the output.
  const logs = logCapture();
  const logger = createLogger(config.logLevel, {}, logs.sink);
  const keyVault = localKeyVault(randomBytes(32));
  // /portal/sign-in's codes are read from the outbox, as a customer of npm start reads them.
  const outbox = mkdtempSync(join(tmpdir(), 'licensing-bench-outbox-'));
  const mailer = outboxMailer(outbox, logger);
  const deps = createDeps(config, { client, clock, logger, keyVault, mailer });
  const server = await startLocalServer({ deps, port: 0 });
  // The same stack with signing off (SIGN_ANSWERS=false), only to measure what signing costs /auth in this run.
  const unsignedServer = await startLocalServer({ deps: createDeps({ ...config, signAnswers: false }, { client, clock, logger, keyVault, mailer }), port: 0 });
  const urlOf = (scenario: { unsigned?: boolean }) => (scenario.unsigned ? unsignedServer.url : server.url);
  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    return { status: response.status, body: (await response.json()) as any };
  };

  progress('seeding: an app with 16,000 licenses, subscriptions, blacklists');
  const owner = await owners.bootstrap(deps);
  // An endpoint subscribed to every event of the app the loads use: /auth is measured with a webhook in place.
  const webhooks = await startWebhookBench(deps, keyVault, owner);
  const auth = { 'x-api-key': owner.api_key };
  const management = async (path: string, body: Record<string, unknown>) => {
    const answer = await post(path, body, auth);
    if (answer.status !== 200) throw new Error(`${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    return answer.body.data;
  };
  const subscriptions: string[] = [];
  for (const [name, level] of [['Basic', 1], ['Pro', 2], ['Team', 3]] as const) {
    subscriptions.push((await management('/subscription/create', { app_id: owner.app_id, name, level })).subscription_id);
  }
  // A tier with a counter no run can fill: /usage is measured counting, never refused.
  const meteredTier = (
    await management('/subscription/create', { app_id: owner.app_id, name: 'Metered', level: 4, usage_limits: { bench: { limit: 1_000_000_000_000, period: 'year' } } })
  ).subscription_id as string;
  for (let i = 0; i < 50; i++) {
    await management('/blacklist/add', { app_id: owner.app_id, type: 'ip', value: `203.0.113.${i}`, reason: 'abuse' });
    await management('/blacklist/add', { app_id: owner.app_id, type: 'hwid', value: `banned-device-${i}`, reason: 'chargeback' });
  }
  const createBulk = (subscriptionId: string, hwidLock: boolean) => ({
    key_amount: 1000,
    app_id: owner.app_id,
    subscription_id: subscriptionId,
    duration_unit: 'days',
    duration_value: 365,
    hwid_lock: hwidLock,
    tags: ['bench'],
  });
  const keys: string[] = [];
  const lockedKeys: string[] = [];
  // One batch after another: ten at once (10,000 transactional writes) time out on a busy machine's DynamoDB Local.
  const created: { key: string }[][] = [];
  for (let batch = 0; batch < 10; batch++) created.push(await management('/license/create-bulk', createBulk(subscriptions[batch % 3]!, batch === 9)));
  keys.push(...created.slice(0, 9).flat().map((license) => license.key));
  lockedKeys.push(...created[9]!.map((license) => license.key));
  // Floating licenses of 5 seats, 3 of them leased (for an hour) before measuring: the heartbeat renews a live lease among others.
  const floatingKeys = ((await management('/license/create-bulk', { ...createBulk(subscriptions[1]!, true), max_devices: 5, lease_seconds: 3600 })) as { key: string }[]).map(
    (license) => license.key,
  );
  const seatDevices = [0, 1, 2].map((seat) => (license: string) => `seat-${seat}-${license}`);
  const meteredKeys = ((await management('/license/create-bulk', createBulk(meteredTier, false))) as { key: string }[]).map((license) => license.key);
  // HWID-locked licenses whose device is bound before measuring: a license file is checked out for a device already bound.
  const fileKeys = ((await management('/license/create-bulk', createBulk(subscriptions[1]!, true))) as { key: string }[]).map((license) => license.key);
  const fileDevice = (index: number) => `file-device-${index}`;
  // Four sets of 1000 for extend-bulk, one per connection of its run at 4: an owner's concurrent bulk extensions name different licenses
  // (the same 1000 from every connection would measure only their conditions failing on one another, then key-by-key work).
  const extendSets: string[][] = [];
  for (let set = 0; set < 4; set++) extendSets.push(((await management('/license/create-bulk', createBulk(subscriptions[set % 3]!, false))) as { key: string }[]).map((license) => license.key));
  const warmKeys = keys.slice(0, plan.warmLicenses);
  const registerPool = keys.slice(plan.warmLicenses, plan.warmLicenses + 3000);
  const users = await Promise.all(
    warmKeys.slice(0, 40).map(async (license, i) => {
      const user = { username: `bench-user-${i}`, password: `password-${i}-long` };
      const answer = await post('/register', { app_id: owner.app_id, license, ...user });
      if (answer.status !== 200) throw new Error(`register answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      return user;
    }),
  );
  // Trials on the Basic tier: the devices trial_resumed resumes are started in the warm-up, fewer than the 1000 one address may
  // start in 24 hours (every request comes from loopback). trial_started starts a new device's trial per metered request, in an
  // application of its own whose address start times the warm-up left alone.
  const trialOf = (subscriptionId: string) => ({ subscription_id: subscriptionId, duration_seconds: 7_776_000, per_ip_per_day: 1000 });
  await management('/app/settings', { app_id: owner.app_id, trial: trialOf(subscriptions[0]!) });
  const trialDevices = Array.from({ length: Math.min(plan.warmLicenses, 900) }, (_, i) => `trial-device-${i}`);
  const starter = await owners.bootstrap(deps);
  const starterAuth = { 'x-api-key': starter.api_key };
  const starterTier = (await post('/subscription/create', { app_id: starter.app_id, name: 'Trial', level: 1 }, starterAuth)).body.data.subscription_id as string;
  if ((await post('/app/settings', { app_id: starter.app_id, trial: trialOf(starterTier) }, starterAuth)).status !== 200) throw new Error('the trial settings were refused');
  const cursors: (string | undefined)[] = [undefined];
  while (cursors.length < 10) {
    const page = await post('/license/get-bulk', { app_id: owner.app_id, per_page: 100, cursor: cursors.at(-1) }, auth);
    if (!page.body.next_cursor) break;
    cursors.push(page.body.next_cursor as string);
  }

  const body = (value: Record<string, unknown>) => JSON.stringify(value);
  let registerNext = 0;
  const scenarios: Record<string, { path: string; headers?: Record<string, string>; bodies: () => string[]; amount: number; unsigned?: boolean }> = {
    auth_license: { path: '/auth', bodies: () => warmKeys.map((license) => body({ app_id: owner.app_id, license })), amount: plan.amount, unsigned: true },
    // The same requests with signing on, as deployed; no nonce, as the Keycrate SDKs send them.
    auth_license_signed: { path: '/auth', bodies: () => warmKeys.map((license) => body({ app_id: owner.app_id, license })), amount: plan.amount },
    auth_license_hwid: {
      path: '/auth',
      bodies: () => lockedKeys.map((license, i) => body({ app_id: owner.app_id, license, hwid: `device-${i}` })),
      amount: plan.amount,
    },
    // A heartbeat: the device holds a live lease on a floating license, beside two other live leases. Signing off, as auth_license.
    auth_floating: {
      path: '/auth',
      bodies: () => floatingKeys.map((license) => body({ app_id: owner.app_id, license, hwid: seatDevices[0]!(license) })),
      amount: plan.amount,
      unsigned: true,
    },
    // A license file (a day long) for a bound device, plain and encrypted, beside /auth by key: answers with signing off, as auth_license.
    license_file: {
      path: '/license-file',
      bodies: () => fileKeys.map((license, i) => body({ app_id: owner.app_id, license, hwid: fileDevice(i), lifetime_seconds: 86400 })),
      amount: plan.amount,
      unsigned: true,
    },
    license_file_encrypted: {
      path: '/license-file',
      bodies: () => fileKeys.map((license, i) => body({ app_id: owner.app_id, license, hwid: fileDevice(i), lifetime_seconds: 86400, encrypt: true })),
      amount: plan.amount,
      unsigned: true,
    },
    // /usage beside /auth by key, both with signing off: without a usage_id, and with a fresh one per request.
    usage: { path: '/usage', bodies: () => meteredKeys.map((license) => body({ app_id: owner.app_id, license, counter: 'bench' })), amount: plan.amount, unsigned: true },
    usage_id: {
      path: '/usage',
      bodies: () => Array.from({ length: plan.amount }, (_, i) => body({ app_id: owner.app_id, license: meteredKeys[i % meteredKeys.length], counter: 'bench', usage_id: randomBytes(12).toString('base64url') })),
      amount: plan.amount,
      unsigned: true,
    },
    auth_credentials: { path: '/auth', bodies: () => users.map((user) => body({ app_id: owner.app_id, ...user })), amount: plan.amount },
    register: {
      path: '/register',
      // Each request registers a license of its own, so no body repeats across the runs.
      bodies: () => {
        const taken = registerPool.slice(registerNext, registerNext + 1000);
        registerNext += taken.length;
        return taken.map((license) => body({ app_id: owner.app_id, license, username: `user-${license}`, password: 'a-good-password' }));
      },
      amount: 1000,
    },
    // A device's running trial asked for again, signing off as auth_license: what a program without a stored key sends.
    trial_resumed: { path: '/trial', bodies: () => trialDevices.map((hwid) => body({ app_id: owner.app_id, hwid })), amount: plan.amount, unsigned: true },
    create_bulk: { path: '/license/create-bulk', headers: auth, bodies: () => [body(createBulk(subscriptions[0]!, false))], amount: plan.bulkAmount },
    get_bulk: {
      path: '/license/get-bulk',
      headers: auth,
      bodies: () => cursors.map((cursor) => body({ app_id: owner.app_id, per_page: 100, ...(cursor ? { cursor } : {}) })),
      amount: plan.amount,
    },
    extend_bulk: { path: '/license/extend-bulk', headers: auth, bodies: () => extendSets.map((set) => body({ license_keys: set, extend_seconds: 60 })), amount: plan.bulkAmount },
  };

  progress('warming the store and the warm licenses (discarded)');
  const baselineServer = await startBaselineServer(deps.table);
  const warmUp = async (url: string, requests: LoadRequest[], headers?: Record<string, string>) =>
    runLoad({ url, requests, headers, connections: 32, amount: requests.length, maxSeconds: quick ? 15 : 30 });
  await warmUp(baselineServer.url, baselineRequests);
  await warmUp(server.url, scenarios.auth_license!.bodies().map((text) => ({ path: '/auth', body: text })));
  await warmUp(unsignedServer.url, scenarios.auth_license!.bodies().map((text) => ({ path: '/auth', body: text })));
  await warmUp(server.url, scenarios.auth_license_hwid!.bodies().map((text) => ({ path: '/auth', body: text })));
  await warmUp(
    unsignedServer.url,
    seatDevices.flatMap((device) => floatingKeys.map((license) => ({ path: '/auth', body: body({ app_id: owner.app_id, license, hwid: device(license) }) }))),
  );
  await warmUp(unsignedServer.url, scenarios.license_file!.bodies().map((text) => ({ path: '/license-file', body: text })));
  // Starts from one address take turns on the address's list of start times (a start that loses reads it again), so the
  // trials are started one after another, every one checked: a warm-up timed at 15 s with 32 connections can end before
  // they all started, and trial_resumed would then measure starts.
  for (const hwid of trialDevices) {
    const answer = await post('/trial', { app_id: owner.app_id, hwid });
    if (answer.status !== 200) throw new Error(`the warm-up's trial of ${hwid} answered ${answer.status} ${String(answer.body.message)}`);
  }
  // /usage counts only on a license in use: a first /auth starts each one.
  await warmUp(unsignedServer.url, meteredKeys.map((license) => ({ path: '/auth', body: body({ app_id: owner.app_id, license }) })));
  await warmUp(unsignedServer.url, scenarios.usage!.bodies().map((text) => ({ path: '/usage', body: text })));
  // The events consumer runs through every measured load, as npm start runs it, on a client of its own so the meter sees
  // only the requests' calls. Started after the seeding (which is not measured), it first consumes what the seeding wrote.
  progress('events consumer: consuming the seeding and warm-up records before any measured load');
  const events = await startLocalEventStream({
    client: store.client,
    endpoint: store.endpoint,
    region: config.region,
    tableName: config.tableName,
    pollMs: 100,
    deps: { ...createDeps(config, { client: createDynamoClient(config), logger }), sink: localSink({ webhookUrl: undefined, logger }) },
  });
  await events.drain();

  // A load run ends with requests still in the server (a client gone does not stop a create-bulk): wait them out.
  const quiesce = async () => {
    for (let last = -1, idle = 0, waited = 0; idle < 2 && waited < 120_000; waited += 250) {
      idle = meter.total() === last ? idle + 1 : 0;
      last = meter.total();
      await new Promise((wake) => setTimeout(wake, 250));
    }
  };
  const load: Record<string, Record<string, LoadResult>> = {};
  let consumer: { records: number; seconds: number; rps: number; lag_s: number } | undefined;
  for (const [name, requests] of [
    ['baseline_store', baselineRequests],
    ['baseline_store_transaction', baselineTransactionRequests],
  ] as const) {
    for (const connections of concurrencies) {
      progress(`${name} at concurrency ${connections}`);
      (load[name] ??= {})[`c${connections}`] = await runLoad({ url: baselineServer.url, requests, connections, amount: plan.amount, maxSeconds: plan.seconds });
    }
  }
  await baselineServer.close();
  let consumerRunning = true;
  const measureLoad = async (name: string, connections: number): Promise<LoadResult> => {
    const scenario = scenarios[name]!;
    const requests = scenario.bodies().map((text) => ({ path: scenario.path, body: text }));
    await quiesce();
    // Each load starts with the consumer caught up, so no load pays for the records of the one before it (a heartbeat's
    // leases, a file's event and audit item).
    if (consumerRunning) await events.drain();
    return runLoad({
      url: urlOf(scenario),
      requests,
      headers: scenario.headers,
      connections,
      amount: Math.min(scenario.amount, requests.length * (name === 'register' ? 1 : Infinity)),
      maxSeconds: slow.has(name) && connections > 1 ? plan.slowSeconds : plan.seconds,
    });
  };
  for (const name of Object.keys(scenarios)) {
    for (const connections of concurrenciesOf(name)) {
      progress(`${name} at concurrency ${connections}`);
      // The consumer's throughput is measured over the /auth load at concurrency 32 and what remains to consume after it.
      const measuresConsumer = name === 'auth_license' && connections === 32;
      const [recordsBefore, startedAt] = [events.recordsRead, performance.now()];
      (load[name] ??= {})[`c${connections}`] = await measureLoad(name, connections);
      if (measuresConsumer) {
        const loadEndedAt = performance.now();
        await events.drain();
        const seconds = (performance.now() - startedAt) / 1000;
        const records = events.recordsRead - recordsBefore;
        consumer = { records, seconds: round(seconds), rps: Math.round(records / seconds), lag_s: round((performance.now() - loadEndedAt) / 1000) };
        progress(`events consumer: ${records} stream records in ${round(seconds)} s, ${round((performance.now() - loadEndedAt) / 1000)} s behind at the end of the load`);
      }
    }
  }
  // A throughput budget is a ratio of two routes' requests/s, and this machine's spare capacity drifts from one load to the
  // next (other processes, the store's JVM): one load of each, minutes apart, put the same build's plain license file at
  // 0.58 to 0.84 of /auth by key. So each route held to a ratio of /auth is loaded again in rounds right beside a load of
  // /auth, the two in alternating order, and judged by the median of the rounds' ratios.
  // The rounds run with the events consumer drained and stopped. On AWS it is a function of its own that the stream feeds,
  // taking nothing from the client function's requests/s; here it runs in the server's process on the same two cores, and
  // its work differs between the two sides of a round: each record of either is a mark and a login count to write, and a
  // file's also an event and its audit item (whose own record it then reads back, which AWS's filter keeps from the
  // function). Per request it cost a plain file more than twice the CPU it cost /auth, most of the gap between the two
  // routes (docs/performance.md, the ratios of throughput in its method). Its own budget is measured above, over the /auth
  // load at concurrency 32; it stays stopped for the metering below, which counts one request at a time and needs the
  // store to itself.
  await events.drain();
  await events.stop();
  consumerRunning = false;
  const pairedRatios: Record<string, number[]> = {};
  for (const name of comparedWithAuth) {
    for (let pass = 0; pass < plan.pairedRounds; pass++) {
      progress(`${name} beside auth_license at concurrency 32, round ${pass + 1} of ${plan.pairedRounds}`);
      const order = pass % 2 === 0 ? [name, 'auth_license'] : ['auth_license', name];
      const rps: Record<string, number> = {};
      for (const each of order) rps[each] = (await measureLoad(each, 32)).rps;
      (pairedRatios[name] ??= []).push(ratio(rps[name]!, rps.auth_license!));
    }
  }

  progress('webhook deliveries: a burst of license.created events from the local delivery queue to a loopback receiver');
  const webhookDeliveries = await webhooks.measure(quick ? 200 : 1000);
  await webhooks.close();
  await quiesce();
  progress('DynamoDB round trips and capacity per request, cold and warm');
  const metered: Record<string, { cold: Meter; warm: Meter }> = {};
  const served: Record<string, ServedSample[]> = {};
  // Metered only: a start changes what the next one meets (the address's start times), so it runs no load.
  const meteredScenarios: typeof scenarios = {
    ...scenarios,
    trial_started: {
      path: '/trial',
      bodies: () => Array.from({ length: 2 * plan.meterSamples + 1 }, () => body({ app_id: starter.app_id, hwid: `new-device-${randomBytes(8).toString('hex')}` })),
      amount: 0,
      unsigned: true,
    },
  };
  for (const [name, scenario] of Object.entries(meteredScenarios)) {
    progress(`metering ${name}`);
    const samples = bulkWrites.has(name) ? plan.bulkMeterSamples : plan.meterSamples;
    const bodies = scenario.bodies();
    let next = 0;
    const send = async () => {
      const startedAt = performance.now();
      const text = bodies[next++ % bodies.length]!;
      const { value: answer, bytes } = await logs.during(async () => {
        const response = await fetch(`${urlOf(scenario)}${scenario.path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...scenario.headers },
          body: text,
        });
        return { status: response.status, text: await response.text() };
      });
      if (answer.status !== 200) throw new Error(`${name} answered ${answer.status}: ${answer.text}`);
      return { ms: performance.now() - startedAt, log_bytes: bytes, status: answer.status, request_bytes: Buffer.byteLength(text), response_bytes: Buffer.byteLength(answer.text) };
    };
    const measure = async (cold: boolean): Promise<Meter> => {
      let total = { roundTrips: 0, writes: 0, read: 0, write: 0 };
      for (let i = 0; i < samples; i++) {
        if (cold) clock.skip(config.cacheTtlSeconds + 1);
        meter.reset();
        const sample = await send();
        if (!cold) (served[name] ??= []).push(sample);
        total = {
          roundTrips: total.roundTrips + meter.total(),
          writes: total.writes + meter.writes(),
          read: total.read + meter.readUnits(),
          write: total.write + meter.writeUnits(),
        };
      }
      return { round_trips: round(total.roundTrips / samples), write_requests: round(total.writes / samples), read_units: round(total.read / samples), write_units: round(total.write / samples) };
    };
    const cold = await measure(true);
    await send();
    metered[name] = { cold, warm: await measure(false) };
  }

  progress('write routes: each once, metered');
  const writeRoutes = await measureWriteRoutes({ meter, management, client: post, appId: owner.app_id, subscriptionId: subscriptions[2]! });

  // The apps below are seeded after the metering, whose figures they would not change, with the consumer stopped: the figures are the requests' own.
  const scaleContext: ScaleContext = { deps, management, teamId: owner.team_id, url: unsignedServer.url, headers: auth, meter, quiesce };
  progress('app_stats: /app/stats read units on an app of 100 licenses and one of 2,000');
  const appStats: AppStatsUnits = await measureAppStatsUnits(scaleContext);
  progress('portal_licenses: /portal/licenses of a customer of 3 licenses, in an app of 100 licenses and one of 2,000');
  const portalLicenses: PortalUnits = await measurePortalLicenses(scaleContext, outbox);
  const scale: ScaleResult | undefined =
    options.scale === undefined ? undefined : await measureScale(scaleContext, { licenses: Number(options.scale), maxSeedSeconds, log: progress });

  progress('bcrypt');
  const bcrypt: Record<string, { hash_ms: number; compare_ms: number }> = {};
  for (const cost of [...new Set([10, 12, config.bcryptCost])].sort((a, b) => a - b)) {
    const hashes: number[] = [];
    const compares: number[] = [];
    for (let i = 0; i < plan.bcryptRuns; i++) {
      let at = performance.now();
      const hash = await hashPassword('a-good-password', cost);
      hashes.push(performance.now() - at);
      at = performance.now();
      await verifyPassword('a-good-password', hash);
      compares.push(performance.now() - at);
    }
    bcrypt[`cost_${cost}`] = { hash_ms: round(median(hashes)), compare_ms: round(median(compares)) };
  }

  await server.close();
  await unsignedServer.close();
  progress('the stack synthesized at its default settings and with clientApi=http (no bundling), for what each function is deployed with');
  const deployed = deployedStack();
  const deployedHttp = deployedStack({ clientApi: 'http' });
  progress('bundles and the reference handlers: build, then fresh-process import and one request against the store, interleaved');
  const measured = await measureBundles(root, { endpoint: store.endpoint, tableName: config.tableName }, plan.bundleRuns, progress, deployed.functions);

  const baselineOf = (byConcurrency: Record<string, LoadResult>) => ({ rps: byConcurrency.c32!.rps, p50_ms: byConcurrency.c32!.p50_ms, p99_ms: byConcurrency.c32!.p99_ms, by_concurrency: byConcurrency });
  const operation = (name: string) => {
    const at32 = Object.values(load[name]!).at(-1)!;
    return {
      p50_ms: at32.p50_ms,
      p99_ms: at32.p99_ms,
      rps: at32.rps,
      ddb_round_trips_cold: metered[name]!.cold.round_trips,
      ddb_round_trips_warm: metered[name]!.warm.round_trips,
      read_units: metered[name]!.warm.read_units,
      write_units: metered[name]!.warm.write_units,
      cold: metered[name]!.cold,
      warm: metered[name]!.warm,
      by_concurrency: load[name]!,
      ...(pairedRatios[name] ? { ratio_to_auth_license: { median: median(pairedRatios[name]), rounds: pairedRatios[name] } } : {}),
    };
  };
  const results = {
    generated_at: new Date().toISOString(),
    mode: quick ? 'quick' : 'full',
    machine: {
      cpu: cpus()[0]?.model ?? 'unknown',
      cores: cpus().length,
      memory_gb: round(totalmem() / 2 ** 30),
      node: process.version,
      load_average_at_start: loadAverageAtStart.map(round),
      load_average_at_end: loadavg().map(round),
    },
    settings: { cache_ttl_seconds: config.cacheTtlSeconds, bcrypt_cost: config.bcryptCost, log_level: config.logLevel, seconds_per_run: plan.seconds },
    auth_license: operation('auth_license'),
    auth_license_signed: operation('auth_license_signed'),
    auth_license_hwid: operation('auth_license_hwid'),
    auth_floating: operation('auth_floating'),
    license_file: operation('license_file'),
    license_file_encrypted: operation('license_file_encrypted'),
    usage: operation('usage'),
    usage_id: operation('usage_id'),
    auth_credentials: operation('auth_credentials'),
    register: operation('register'),
    create_bulk: operation('create_bulk'),
    get_bulk: operation('get_bulk'),
    extend_bulk: operation('extend_bulk'),
    trial_resumed: operation('trial_resumed'),
    trial_started: metered.trial_started!,
    events_consumer_rps: consumer!.rps,
    events_consumer: consumer!,
    webhook_deliveries: webhookDeliveries,
    baseline_store: baselineOf(load.baseline_store!),
    baseline_store_transaction: baselineOf(load.baseline_store_transaction!),
    ...costSection({ served, metered, scenarios: meteredScenarios, deployed, deployedHttp }),
    app_stats: appStats,
    portal_licenses: portalLicenses,
    ...(scale ? { scale } : {}),
    bundles: measured.bundles,
    bundles_reference: measured.reference,
    bundles_reference_kms: measured.referenceKms,
    bundles_reference_sdk: measured.referenceSdk,
    bcrypt,
    write_routes: writeRoutes,
  };
  const budgets = checkBudgets(results);
  mkdirSync(join(root, 'bench'), { recursive: true });
  writeFileSync(join(root, 'bench', 'results.json'), `${JSON.stringify({ ...results, budgets }, null, 2)}\n`);
  const markdown = renderMarkdown(results, budgets);
  writeFileSync(join(root, 'bench', 'results.md'), markdown);
  process.stdout.write(markdown);
  if (options['update-docs']) updatePerformancePage(markdown);
  progress(`done: bench/results.json, bench/results.md`);
} finally {
  await stopStore();
}

interface Meter {
  round_trips: number;
  write_requests: number;
  read_units: number;
  write_units: number;
}

type AuthResult = { rps: number; cold: Meter; warm: Meter; ddb_round_trips_cold: number; ddb_round_trips_warm: number; ratio_to_auth_license?: { median: number; rounds: number[] } };

type Results = {
  auth_license: AuthResult;
  auth_floating: AuthResult;
  auth_license_signed: AuthResult;
  bundles_reference_kms: BundleResult;
  bundles_reference_sdk: BundleResult;
  baseline_store: { rps: number; by_concurrency: Record<string, LoadResult> };
  baseline_store_transaction: { rps: number; by_concurrency: Record<string, LoadResult> };
  bundles: Record<string, BundleResult>;
  bundles_reference: BundleMeasurement['reference'];
  cost_per_million: Record<string, CostPerMillion>;
  cost_per_million_http: Record<string, CostPerMillion>;
  app_stats: AppStatsUnits;
  portal_licenses: PortalUnits;
  scale?: ScaleResult;
} & Record<string, any>;

function checkBudgets(results: Results) {
  const auth = results.auth_license;
  const signed = results.auth_license_signed;
  const besideAuth = (name: (typeof comparedWithAuth)[number]): number => results[name].ratio_to_auth_license!.median;
  const beside = `; the median of ${results[comparedWithAuth[0]].ratio_to_auth_license!.rounds.length} rounds, each beside a load of /auth by key, the events consumer stopped`;
  const checks = [
    { budget: '/auth by key: at most 3 DynamoDB round trips cold', value: auth.ddb_round_trips_cold, pass: auth.ddb_round_trips_cold <= 3 },
    { budget: '/auth by key: at most 2 DynamoDB round trips warm', value: auth.ddb_round_trips_warm, pass: auth.ddb_round_trips_warm <= 2 },
    { budget: '/auth by key: one write per successful /auth', value: auth.warm.write_requests, pass: auth.warm.write_requests === 1 && auth.cold.write_requests === 1 },
    ...unitBudgets(results),
    ...costBudgets(results),
    ...appStatsBudgets(results.app_stats),
    ...portalBudgets(results.portal_licenses),
    ...scaleBudgets(results.scale),
    {
      budget: '/auth by key: at least half the baseline requests/s (concurrency 32)',
      value: round(auth.rps / results.baseline_store.rps),
      pass: auth.rps >= results.baseline_store.rps / 2,
    },
    {
      budget: 'floating heartbeat: the DynamoDB round trips of /auth by key, warm',
      value: results.auth_floating.ddb_round_trips_warm,
      pass: results.auth_floating.ddb_round_trips_warm === auth.ddb_round_trips_warm,
    },
    {
      budget: 'floating heartbeat: the write requests and write units of /auth by key, warm',
      value: results.auth_floating.warm.write_units,
      pass: results.auth_floating.warm.write_requests === auth.warm.write_requests && results.auth_floating.warm.write_units === auth.warm.write_units,
    },
    {
      budget: `floating heartbeat: at least ${floatingBudgetRatio} × the requests/s of /auth by key (concurrency 32${beside})`,
      value: besideAuth('auth_floating'),
      pass: besideAuth('auth_floating') >= floatingBudgetRatio,
    },
    ...(['license_file', 'license_file_encrypted'] as const).flatMap((name) => [
      {
        budget: `${name}: the DynamoDB round trips, write requests and write units of /auth by key, warm`,
        value: `${results[name].ddb_round_trips_warm} / ${results[name].warm.write_requests} / ${results[name].warm.write_units}`,
        pass:
          results[name].ddb_round_trips_warm === auth.ddb_round_trips_warm &&
          results[name].warm.write_requests === auth.warm.write_requests &&
          results[name].warm.write_units === auth.warm.write_units,
      },
      {
        budget: `${name}: at least ${licenseFileBudgetRatio} × the requests/s of /auth by key (concurrency 32, answers unsigned${beside})`,
        value: besideAuth(name),
        pass: besideAuth(name) >= licenseFileBudgetRatio,
      },
    ]),
    {
      budget: 'events consumer keeps up with /auth at concurrency 32: seconds behind at the end of the load, at most 5',
      value: results.events_consumer.lag_s,
      pass: results.events_consumer.lag_s <= 5,
    },
    {
      budget: `signed /auth by key: at least ${signedBudgetRatio} × the requests/s of /auth with signing off (concurrency 32${beside})`,
      value: besideAuth('auth_license_signed'),
      pass: besideAuth('auth_license_signed') >= signedBudgetRatio,
    },
    {
      budget: '/usage without usage_id: at most 2 DynamoDB round trips and 1 write, warm',
      value: `${results.usage.warm.round_trips} / ${results.usage.warm.write_requests}`,
      pass: results.usage.warm.round_trips <= 2 && results.usage.warm.write_requests === 1,
    },
    {
      budget: '/usage with usage_id: at most 2 DynamoDB round trips, its one write a transaction, warm',
      value: `${results.usage_id.warm.round_trips} / ${results.usage_id.warm.write_requests}`,
      pass: results.usage_id.warm.round_trips <= 2 && results.usage_id.warm.write_requests === 1,
    },
    {
      budget: `/usage: at least 0.8 × the requests/s of /auth by key (concurrency 32, both signing off${beside})`,
      value: besideAuth('usage'),
      pass: besideAuth('usage') >= 0.8,
    },
    // Its write is a transaction and /auth's an update: each is held to the store floor of its own write, so that
    // what DynamoDB Local charges for a transaction over an update (the two floors' ratio, in every run's table) is not counted as our code's.
    {
      budget:
        '/usage with usage_id: its requests/s over the transaction floor at least 0.8 × those of /auth by key over the store floor (concurrency 32, both signing off)',
      value: `${ratio(results.usage_id.rps, results.baseline_store_transaction.rps)} / ${ratio(auth.rps, results.baseline_store.rps)} (${ratio(results.usage_id.rps, auth.rps)} × /auth)`,
      pass: results.usage_id.rps / results.baseline_store_transaction.rps >= (0.8 * auth.rps) / results.baseline_store.rps,
    },
    {
      budget: `/trial resuming a trial: at least ${trialBudgetRatio} × the requests/s of /auth by key (concurrency 32, both signing off${beside})`,
      value: besideAuth('trial_resumed'),
      pass: besideAuth('trial_resumed') >= trialBudgetRatio,
    },
    {
      budget: '/trial resuming a trial: what /auth by key costs warm, its DynamoDB round trips, read units, write requests and write units',
      value: (['round_trips', 'read_units', 'write_requests', 'write_units'] as const).map((field) => results.trial_resumed.warm[field]).join(' / '),
      pass: (['round_trips', 'read_units', 'write_requests', 'write_units'] as const).every((field) => results.trial_resumed.warm[field] === auth.warm[field]),
    },
    {
      budget: '/trial starting a trial: one write request (a transaction), warm and cold',
      value: `${results.trial_started.cold.write_requests} / ${results.trial_started.warm.write_requests}`,
      pass: results.trial_started.cold.write_requests === 1 && results.trial_started.warm.write_requests === 1,
    },
    {
      budget: 'signed /auth by key: no DynamoDB round trip more than unsigned, warm',
      value: signed.ddb_round_trips_warm - auth.ddb_round_trips_warm,
      pass: signed.ddb_round_trips_warm <= auth.ddb_round_trips_warm,
    },
    ...Object.entries(results.bundles).map(([name, bundle]) => {
      const reference = bundle.reference === 'kms' ? results.bundles_reference_kms : results.bundles_reference;
      return {
        budget: `${name} bundle: import + first request at most ${initBudgetOf(name)} × the ${bundle.reference === 'kms' ? 'KMS reference' : 'reference'} handler's (Middy, zod/mini, the AWS SDK)`,
        value: ratio(bundle.init_ms, reference.init_ms),
        pass: bundle.init_ms <= initBudgetOf(name) * reference.init_ms,
      };
    }),
  ];
  return { all_met: checks.every((check) => check.pass), checks };
}

/** The floor of a warm /auth on DynamoDB: the license read (eventually consistent, under 4 KB) and its write (under 1 KB). */
function unitBudgets(results: Results) {
  const warm = results.auth_license.warm;
  return [
    { budget: '/auth by key, warm: 1 write unit', value: warm.write_units, pass: warm.write_units === 1 },
    { budget: '/auth by key, warm: at most 0.5 read units', value: warm.read_units, pass: warm.read_units <= 0.5 },
  ];
}

function renderMarkdown(results: Results, budgets: ReturnType<typeof checkBudgets>): string {
  const { machine } = results;
  const lines = [
    `Run of ${results.generated_at} (\`npm run bench${results.mode === 'quick' ? ' -- --quick' : ''}${results.scale ? `${results.mode === 'quick' ? '' : ' --'} --scale ${results.scale.licenses_large}` : ''}\`) on ${machine.cores} × ${machine.cpu}, ${machine.memory_gb} GB, Node ${machine.node}; load average ${machine.load_average_at_start.join(' / ')} at start, ${machine.load_average_at_end.join(' / ')} at end. Cache TTL ${results.settings.cache_ttl_seconds} s, bcrypt cost ${results.settings.bcrypt_cost}.`,
    '',
    '| Operation | c1 p50 ms | c1 p99 ms | c1 req/s | c32 p50 ms | c32 p99 ms | c32 req/s | DDB round trips cold / warm | RCU / WCU per request (warm) |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  const labels: Record<string, string> = {
    auth_license: '`/auth` by key, unlocked, signing off',
    auth_license_signed: '`/auth` by key, unlocked, signed',
    auth_license_hwid: '`/auth` by key, HWID-locked',
    auth_floating: '`/auth` heartbeat, floating license (3 of 5 seats leased), signing off',
    license_file: '`/license-file` for a bound device, signing off',
    license_file_encrypted: '`/license-file` for a bound device, encrypted, signing off',
    usage: '`/usage`, signing off',
    usage_id: '`/usage` with a new `usage_id`, signing off',
    auth_credentials: '`/auth` by username/password',
    register: '`/register`',
    create_bulk: '`create-bulk` of 1000',
    get_bulk: '`get-bulk` page of 100',
    extend_bulk: '`extend-bulk` of 1000',
    trial_resumed: "`/trial` resuming a device's trial, signing off",
  };
  for (const [name, label] of Object.entries(labels)) {
    const op = results[name];
    const [c1, c32] = Object.values(op.by_concurrency as Record<string, LoadResult>) as [LoadResult, LoadResult];
    const many = Object.keys(op.by_concurrency)[1];
    const failed = c1.non_2xx + c1.errors + c32.non_2xx + c32.errors;
    lines.push(
      `| ${label}${many === 'c32' ? '' : ` (${many})`}${failed ? ` (${failed} failed)` : ''} | ${c1.p50_ms} | ${c1.p99_ms} | ${c1.rps} | ${c32.p50_ms} | ${c32.p99_ms} | ${c32.rps} | ${op.ddb_round_trips_cold} / ${op.ddb_round_trips_warm} | ${op.read_units} / ${op.write_units} |`,
    );
  }
  const started = results.trial_started as { cold: Meter; warm: Meter };
  lines.push(
    `| \`/trial\` starting a trial, signing off (metered only: each start counts against the address) | | | | | | | ${started.cold.round_trips} / ${started.warm.round_trips} | ${started.warm.read_units} / ${started.warm.write_units} |`,
  );
  const baseline = results.baseline_store.by_concurrency as Record<'c1' | 'c32', LoadResult>;
  const transactionFloor = results.baseline_store_transaction.by_concurrency as Record<'c1' | 'c32', LoadResult>;
  lines.push(
    `| Store floor: GetItem + UpdateItem | ${baseline.c1.p50_ms} | ${baseline.c1.p99_ms} | ${baseline.c1.rps} | ${baseline.c32.p50_ms} | ${baseline.c32.p99_ms} | ${baseline.c32.rps} | 2 / 2 | |`,
    `| Store floor: GetItem + TransactWriteItems (a new item and the update) | ${transactionFloor.c1.p50_ms} | ${transactionFloor.c1.p99_ms} | ${transactionFloor.c1.rps} | ${transactionFloor.c32.p50_ms} | ${transactionFloor.c32.p99_ms} | ${transactionFloor.c32.rps} | 2 / 2 | |`,
    '',
    `The store's own price of a transaction: at concurrency 32 its transaction floor answers ${ratio(transactionFloor.c32.rps, baseline.c32.rps)} × the requests/s of its GetItem + UpdateItem floor, and \`/usage\` with a \`usage_id\` (whose write is that transaction) ${ratio(results.usage_id.rps, results.auth_license.rps)} × those of \`/auth\` by key (whose write is that update).`,
    '',
    `Events consumer (DynamoDB Local's stream, running through every load of the table, stopped for the rounds beside /auth and the metering; the records include those of its own marks, audit items and counters, which the stack's filter keeps from the Lambda): ${results.events_consumer.records} stream records in ${results.events_consumer.seconds} s over the \`/auth\` by key run at concurrency 32, ${results.events_consumer_rps} records/s, ${results.events_consumer.lag_s} s behind when the load ended.`,
    `Webhook deliveries (the local delivery queue of npm start to a loopback receiver, one endpoint subscribed to every type of the app the loads above used, so every /auth row, round trips and write units included, was measured with a webhook in place): ${results.webhook_deliveries.deliveries} deliveries in ${results.webhook_deliveries.seconds} s, ${results.webhook_deliveries.per_s}/s, the last ${results.webhook_deliveries.lag_s} s after the burst was queued; deliveries run only here, after the loads, and /auth reads and writes nothing of webhooks.`,
    '',
    ...renderCostSection(results, labels),
    `\`/app/stats\` read units: ${results.app_stats.read_units_small} for an app of ${results.app_stats.licenses_small} licenses, ${results.app_stats.read_units_large} for one of ${results.app_stats.licenses_large}.`,
    `\`/portal/licenses\` for a customer of 3 licenses: ${results.portal_licenses.round_trips_small} DynamoDB round trips and ${results.portal_licenses.read_units_small} read units in an app of ${results.portal_licenses.licenses_small} licenses, ${results.portal_licenses.round_trips_large} and ${results.portal_licenses.read_units_large} in one of ${results.portal_licenses.licenses_large}.`,
    '',
    ...renderScale(results.scale),
    `| Lambda bundle (samples on Node ${results.bundles_reference.node.replace(/^v/, '')}) | NODE_OPTIONS (as deployed) | index.mjs bytes | with chunks | Import + first request, ms (median, fresh process) | × AWS SDK alone | × its reference |`,
    '|---|---|---:|---:|---:|---:|---:|',
    `| AWS SDK alone: DynamoDBDocumentClient + one GetCommand (no yardstick) | | ${results.bundles_reference_sdk.bytes} | ${results.bundles_reference_sdk.bytes_all} | ${results.bundles_reference_sdk.init_ms} | 1 | |`,
    `| Reference: the same behind Middy (http-cors, header normalizer, JSON body parser) and a zod/mini body schema | | ${results.bundles_reference.bytes} | ${results.bundles_reference.bytes_all} | ${results.bundles_reference.init_ms} | ${ratio(results.bundles_reference.init_ms, results.bundles_reference_sdk.init_ms)} | 1 |`,
    `| KMS reference: the reference plus one KMS Decrypt (local stub) | | ${results.bundles_reference_kms.bytes} | ${results.bundles_reference_kms.bytes_all} | ${results.bundles_reference_kms.init_ms} | ${ratio(results.bundles_reference_kms.init_ms, results.bundles_reference_sdk.init_ms)} | 1 (for bundles marked KMS) |`,
    ...Object.entries(results.bundles).map(([name, bundle]) => {
      const reference = bundle.reference === 'kms' ? results.bundles_reference_kms : results.bundles_reference;
      return `| ${name}${bundle.reference === 'kms' ? ' (KMS)' : ''} | ${bundle.node_options ? `\`${bundle.node_options}\`` : 'none'} | ${bundle.bytes} | ${bundle.bytes_all} | ${bundle.init_ms} | ${ratio(bundle.init_ms, results.bundles_reference_sdk.init_ms)} | ${ratio(bundle.init_ms, reference.init_ms)} |`;
    }),
    '',
    '| bcrypt cost | hash ms | compare ms (one login) |',
    '|---:|---:|---:|',
    ...Object.entries(results.bcrypt as Record<string, { hash_ms: number; compare_ms: number }>).map(
      ([cost, timing]) => `| ${cost.replace('cost_', '')} | ${timing.hash_ms} | ${timing.compare_ms} |`,
    ),
    '',
    '| Budget | Measured | Met |',
    '|---|---:|:---:|',
    ...budgets.checks.map((check) => `| ${check.budget} | ${check.value} | ${check.pass ? 'yes' : '**no**'} |`),
    '',
  );
  lines.push(...renderWriteRoutes(results.write_routes), '');
  return lines.join('\n');
}

/** Replaces what lies between the performance page's bench markers, so its numbers always come from a run. */
function updatePerformancePage(markdown: string) {
  const file = join(root, 'docs', 'performance.md');
  const page = readFileSync(file, 'utf8');
  const [start, end] = ['<!-- bench:start -->', '<!-- bench:end -->'];
  const from = page.indexOf(start);
  const to = page.indexOf(end);
  if (from < 0 || to < from) throw new Error(`docs/performance.md has no ${start} … ${end} block`);
  writeFileSync(file, `${page.slice(0, from + start.length)}\n${markdown}${page.slice(to)}`);
}
