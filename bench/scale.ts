import type { Deps } from '#core/deps';
import type { DynamoMeter } from '../local/ddb-meter';
import { runLoad, type LoadResult } from './load';
import { median, round } from './stats';
import { seedApp, type Management, type SeededApp } from './seeded-apps';

/** What the scale figures and the app_stats budget need of the running benchmark. */
export interface ScaleContext {
  deps: Deps;
  management: Management;
  teamId: string;
  /** The local server, signing off. */
  url: string;
  headers: Record<string, string>;
  meter: DynamoMeter;
  /** Waits until the store has answered every request still in the server. */
  quiesce: () => Promise<void>;
}

interface Figure {
  /** null when no request answered within the load's seconds. */
  p50_ms: number | null;
  p99_ms: number | null;
  rps: number;
  /** Requests of the load that failed or timed out (30 s): a figure that grows with the catalogue can stop answering in time. */
  failed: number;
  /** null when the metered requests did not answer in time. */
  read_units: number | null;
  write_units: number | null;
}

type Operation = 'auth' | 'get_bulk' | 'license_find' | 'app_stats';

export interface SizeFigures {
  licenses: number;
  figures: Record<Operation, Figure>;
}

export interface ScaleResult {
  licenses_small: number;
  licenses_large: number;
  small: SizeFigures;
  large: SizeFigures;
  /** large ÷ small, per operation and figure. */
  ratios: Record<Operation, Record<keyof Figure, number | null>>;
  seed_seconds: number;
  total_seconds: number;
}

/** Connections and bounds of each load at each size: enough requests for a p99, a few seconds each. */
const load = { connections: 4, amount: 2000, maxSeconds: 8 };
const meteredSamples = 5;
/**
 * Each load runs this many times per size, the sizes taking turns; a size keeps its
 * round of the lowest p50. A pause of the store (its garbage collection after
 * seeding 200,000 items, another process) slows whichever size it falls on, and
 * noise only ever slows: the best round of each is the figure they are compared by.
 */
const rounds = 2;

/** A request that takes longer than this counts as failed: at 200,000 licenses a request that reads them all takes minutes. */
const requestTimeoutMs = 30_000;

/**
 * The units of one request, alone on the store: the median of a few, so that a
 * sample which also refreshes the warm cache (every CACHE_TTL_SECONDS) does not
 * stand for every request.
 */
export async function metered(
  context: ScaleContext,
  path: string,
  body: string,
  headers: Record<string, string> = context.headers,
): Promise<{ read: number | null; write: number | null; roundTrips: number | null }> {
  const [reads, writes, trips]: [number[], number[], number[]] = [[], [], []];
  for (let i = 0; i < meteredSamples; i++) {
    context.meter.reset();
    const answer = await fetch(`${context.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
      signal: AbortSignal.timeout(requestTimeoutMs),
    }).catch(() => undefined);
    if (answer === undefined) return { read: null, write: null, roundTrips: null };
    if (answer.status !== 200) throw new Error(`${path} answered ${answer.status}: ${await answer.text()}`);
    await answer.arrayBuffer();
    reads.push(context.meter.readUnits());
    writes.push(context.meter.writeUnits());
    trips.push(context.meter.total());
  }
  return { read: round(median(reads)), write: round(median(writes)), roundTrips: round(median(trips)) };
}

type Requests = Record<Operation, { path: string; bodies: string[]; headers?: Record<string, string> }>;

/** /auth by key (warm), the first page of /license/get-bulk, /license/find by key, /app/stats, on one seeded app. */
async function requestsOf(context: ScaleContext, app: SeededApp): Promise<Requests> {
  const authBodies = app.sample.map((license) => JSON.stringify({ app_id: app.app_id, license }));
  // A first /auth activates a license (a transaction, once in its life): the figures are of later ones.
  await runLoad({ url: context.url, requests: authBodies.map((body) => ({ path: '/auth', body })), connections: load.connections, amount: authBodies.length, maxSeconds: 60 });
  return {
    auth: { path: '/auth', bodies: authBodies },
    get_bulk: { path: '/license/get-bulk', bodies: [JSON.stringify({ app_id: app.app_id, per_page: 100 })], headers: context.headers },
    // By key, the sample spread over the app: the seeded copies have no username or HWID to look up.
    license_find: { path: '/license/find', bodies: app.sample.map((license) => JSON.stringify({ app_id: app.app_id, query: license })), headers: context.headers },
    app_stats: { path: '/app/stats', bodies: [JSON.stringify({ app_id: app.app_id })], headers: context.headers },
  };
}

async function loadOf(context: ScaleContext, request: Requests[Operation]): Promise<LoadResult> {
  // A load ends with requests still in the server: each starts, and each metering starts, on a store left alone.
  await context.quiesce();
  return runLoad({ url: context.url, requests: request.bodies.map((body) => ({ path: request.path, body })), headers: request.headers, ...load });
}

/** The round a size is compared by: of those that answered, the lowest p50 (autocannon reports 0 when nothing answered). */
export function bestRound(results: LoadResult[]): LoadResult {
  const answered = results.filter((result) => result.requests > 0).sort((a, b) => a.p50_ms - b.p50_ms);
  return answered[0] ?? results[0]!;
}

/** The figures of each app, the loads of the apps taking turns, `rounds` times. */
async function measureApps(context: ScaleContext, apps: SeededApp[], log: (message: string) => void): Promise<SizeFigures[]> {
  const requests: Requests[] = [];
  for (const app of apps) requests.push(await requestsOf(context, app));
  const operations = Object.keys(requests[0]!) as Operation[];
  const results = apps.map(() => Object.fromEntries(operations.map((operation) => [operation, [] as LoadResult[]])) as Record<Operation, LoadResult[]>);
  for (let round = 1; round <= rounds; round++) {
    for (const operation of operations) {
      for (const [index, app] of apps.entries()) {
        log(`scale: ${operation} at ${app.licenses.toLocaleString('en')} licenses, round ${round} of ${rounds}`);
        results[index]![operation].push(await loadOf(context, requests[index]![operation]));
      }
    }
  }
  const measured: SizeFigures[] = [];
  for (const [index, app] of apps.entries()) {
    const figures = {} as Record<Operation, Figure>;
    for (const operation of operations) {
      const request = requests[index]![operation];
      await context.quiesce();
      const units = await metered(context, request.path, request.bodies[0]!);
      const best = bestRound(results[index]![operation]);
      const answered = best.requests > 0;
      figures[operation] = {
        p50_ms: answered ? best.p50_ms : null,
        p99_ms: answered ? best.p99_ms : null,
        rps: best.rps,
        // Every round's: a request that failed in either is a failure of the size.
        failed: results[index]![operation].reduce((sum, result) => sum + result.non_2xx + result.errors, 0),
        read_units: units.read,
        write_units: units.write,
      };
    }
    measured.push({ licenses: app.licenses, figures });
  }
  return measured;
}

/**
 * `--scale N`: two applications of the same team, 1,000 licenses and N,
 * seeded into the same store, and the same figures measured on each; the
 * ratios say whether a request's cost grows with the catalogue.
 */
export async function measureScale(context: ScaleContext, input: { licenses: number; maxSeedSeconds: number; log: (message: string) => void }): Promise<ScaleResult> {
  const startedAt = Date.now();
  const sizes = [1000, input.licenses];
  const apps: SeededApp[] = [];
  for (const count of sizes) {
    input.log(`scale: seeding an app with ${count.toLocaleString('en')} licenses`);
    apps.push(await seedApp(context.deps, context.management, { teamId: context.teamId, count, sampleSize: 500, maxSeconds: input.maxSeedSeconds }));
  }
  const seedSeconds = round((Date.now() - startedAt) / 1000);
  const [small, large] = (await measureApps(context, apps, input.log)) as [SizeFigures, SizeFigures];
  const ratioOf = (a: number | null, b: number | null) => (a === null || b === null ? null : b === 0 ? (a === 0 ? 1 : null) : Math.round((a / b) * 100) / 100);
  const ratios = Object.fromEntries(
    (Object.keys(small.figures) as Operation[]).map((operation) => [
      operation,
      Object.fromEntries((Object.keys(small.figures[operation]) as (keyof Figure)[]).map((figure) => [figure, ratioOf(large.figures[operation][figure], small.figures[operation][figure])])),
    ]),
  ) as ScaleResult['ratios'];
  return {
    licenses_small: small.licenses,
    licenses_large: large.licenses,
    small,
    large,
    ratios,
    seed_seconds: seedSeconds,
    total_seconds: round((Date.now() - startedAt) / 1000),
  };
}

/** At most this much slower at N licenses than at 1,000: the spread of one figure between two runs on a shared machine. */
export const scaleLatencyNoise = 1.5;

export function scaleBudgets(scale: ScaleResult | undefined) {
  if (!scale) return [];
  const noMore = (large: number | null, small: number | null) => large !== null && small !== null && large <= small;
  return (Object.keys(scale.ratios) as Operation[]).flatMap((operation) => {
    const [small, large] = [scale.small.figures[operation], scale.large.figures[operation]];
    return [
      {
        budget: `scale: ${operation} at ${scale.licenses_large.toLocaleString('en')} licenses reads and writes no more units than at ${scale.licenses_small.toLocaleString('en')}, every request answered`,
        value: `${large.read_units} / ${large.write_units}${large.failed ? ` (${large.failed} failed)` : ''}`,
        pass: noMore(large.read_units, small.read_units) && noMore(large.write_units, small.write_units) && large.failed === 0 && small.failed === 0,
      },
      {
        budget: `scale: ${operation} p50 at ${scale.licenses_large.toLocaleString('en')} licenses at most ${scaleLatencyNoise} × its p50 at ${scale.licenses_small.toLocaleString('en')}`,
        value: String(scale.ratios[operation].p50_ms),
        pass: noMore(scale.ratios[operation].p50_ms, scaleLatencyNoise),
      },
    ];
  });
}

export function renderScale(scale: ScaleResult | undefined): string[] {
  if (!scale) return [];
  const labels: Record<Operation, string> = {
    auth: '`/auth` by key, warm',
    get_bulk: '`get-bulk` first page of 100',
    license_find: '`/license/find` by key',
    app_stats: '`/app/stats`',
  };
  const [small, large] = [scale.licenses_small.toLocaleString('en'), scale.licenses_large.toLocaleString('en')];
  return [
    `Scale (\`--scale ${scale.licenses_large}\`): two applications of one team, ${small} and ${large} licenses, in the same store; ${load.connections} connections, up to ${load.amount} requests or ${load.maxSeconds} s per load, ${rounds} rounds with the sizes taking turns, each size its round of the lowest p50; units the median of ${meteredSamples} requests alone; seeding took ${scale.seed_seconds} s, the whole part ${scale.total_seconds} s.`,
    '',
    `| Operation | p50 ms at ${small} | at ${large} | × | p99 ms at ${small} | at ${large} | × | RRU / WRU at ${small} | at ${large} |`,
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...(Object.keys(labels) as Operation[]).map((operation) => {
      const [s, l, r] = [scale.small.figures[operation], scale.large.figures[operation], scale.ratios[operation]];
      const failed = s.failed + l.failed ? ` (${s.failed} / ${l.failed} failed)` : '';
      return `| ${labels[operation]}${failed} | ${s.p50_ms} | ${l.p50_ms} | ${r.p50_ms} | ${s.p99_ms} | ${l.p99_ms} | ${r.p99_ms} | ${s.read_units} / ${s.write_units} | ${l.read_units} / ${l.write_units} |`;
    }),
    '',
  ];
}

export interface AppStatsUnits {
  licenses_small: number;
  read_units_small: number;
  licenses_large: number;
  read_units_large: number;
}

/** The app_stats budget's two apps: /app/stats read units at 100 and 2,000 licenses, in the run of every other figure. */
export async function measureAppStatsUnits(context: ScaleContext): Promise<AppStatsUnits> {
  const [small, large] = [
    await seedApp(context.deps, context.management, { teamId: context.teamId, count: 100, sampleSize: 1, maxSeconds: 120 }),
    await seedApp(context.deps, context.management, { teamId: context.teamId, count: 2000, sampleSize: 1, maxSeconds: 120 }),
  ];
  await context.quiesce();
  const units = async (app: SeededApp) => (await metered(context, '/app/stats', JSON.stringify({ app_id: app.app_id }))).read ?? Infinity;
  return { licenses_small: small.licenses, read_units_small: await units(small), licenses_large: large.licenses, read_units_large: await units(large) };
}

export function appStatsBudgets(stats: AppStatsUnits) {
  return [
    {
      budget: `/app/stats: no more read units for ${stats.licenses_large} licenses than for ${stats.licenses_small}`,
      value: `${stats.read_units_large} / ${stats.read_units_small}`,
      pass: stats.read_units_large <= stats.read_units_small,
    },
  ];
}
