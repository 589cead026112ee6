import type { DynamoMeter } from '../local/ddb-meter';

/** What one request of a write route cost, as DynamoDB Local reports it. */
export interface WriteRouteUnits {
  /** Licenses the request wrote. */
  licenses: number;
  round_trips: number;
  write_requests: number;
  read_units: number;
  write_units: number;
  ms: number;
}

export interface WriteRouteContext {
  meter: DynamoMeter;
  /** A management call that must answer 200; its `data`. */
  management: (path: string, body: Record<string, unknown>) => Promise<any>;
  client: (path: string, body: Record<string, unknown>) => Promise<{ status: number }>;
  appId: string;
  subscriptionId: string;
}

const bulkSize = 1000;

/**
 * Each write route once, metered, on licenses of its own (docs/performance.md,
 * "Write routes"): the second of two requests alike, so caches and the API-key
 * lookup are as warm as under load. The events consumer runs on a client of its
 * own and is not counted.
 */
export async function measureWriteRoutes(context: WriteRouteContext): Promise<Record<string, WriteRouteUnits>> {
  const { meter, management, client, appId, subscriptionId } = context;
  const createBody = (amount: number) => ({ app_id: appId, subscription_id: subscriptionId, key_amount: amount, duration_unit: 'days', duration_value: 30 });
  const fresh = async (amount: number): Promise<string[]> =>
    ((await management('/license/create-bulk', createBody(amount))) as { key: string }[]).map((license) => license.key);
  const metered = async (licenses: number, send: () => Promise<unknown>): Promise<WriteRouteUnits> => {
    meter.reset();
    const at = performance.now();
    await send();
    const ms = Math.round(performance.now() - at);
    return { licenses, round_trips: meter.total(), write_requests: meter.writes(), read_units: meter.readUnits(), write_units: meter.writeUnits(), ms };
  };
  /** Sends `make(i)` for i = 0 and 1, and reports the second. */
  const twice = async (licenses: number, make: (i: number) => Promise<unknown>): Promise<WriteRouteUnits> => {
    await make(0);
    return metered(licenses, () => make(1));
  };
  const accepted = async (answer: Promise<{ status: number }>) => {
    const { status } = await answer;
    if (status !== 200) throw new Error(`a write route answered ${status}`);
  };

  const registered = await fresh(2);
  const used = await fresh(2);
  for (const license of used) await accepted(client('/auth', { app_id: appId, license }));
  const bulk = [await fresh(bulkSize), await fresh(bulkSize)];
  const statusBulk = [await fresh(100), await fresh(100)];
  return {
    register: await twice(1, (i) => accepted(client('/register', { app_id: appId, license: registered[i], username: `writes-${registered[i]}`, password: 'a-good-password' }))),
    create: await twice(1, () => management('/license/create', { app_id: appId, subscription_id: subscriptionId, duration_unit: 'days', duration_value: 30 })),
    create_bulk: await twice(bulkSize, () => management('/license/create-bulk', createBody(bulkSize))),
    extend: await twice(1, (i) => management('/license/extend', { license_key: used[i], extend_seconds: 60 })),
    extend_bulk: await twice(bulkSize, (i) => management('/license/extend-bulk', { license_keys: bulk[i], extend_seconds: 60 })),
    update_status: await twice(1, (i) => management('/license/update-status', { license_key: used[i], status: 'paused' })),
    update_status_bulk: await twice(100, (i) => management('/license/update-status-bulk', { license_keys: statusBulk[i], status: 'paused' })),
  };
}

const labels: Record<string, string> = {
  register: '`/register`',
  create: '`/license/create`',
  create_bulk: `\`/license/create-bulk\` of ${bulkSize}`,
  extend: '`/license/extend` (a used license)',
  extend_bulk: `\`/license/extend-bulk\` of ${bulkSize}`,
  update_status: '`/license/update-status`',
  update_status_bulk: '`/license/update-status-bulk` of 100',
};

/** The per-route table of the bench's page. */
export function renderWriteRoutes(routes: Record<string, WriteRouteUnits>): string[] {
  const per = (units: number, licenses: number) => Math.round((units / licenses) * 1000) / 1000;
  return [
    '| Write route, one request (warm) | DDB round trips | write requests | RCU | WCU | RCU / WCU per license | ms |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...Object.entries(labels).map(([name, label]) => {
      const route = routes[name]!;
      return `| ${label} | ${route.round_trips} | ${route.write_requests} | ${route.read_units} | ${route.write_units} | ${per(route.read_units, route.licenses)} / ${per(route.write_units, route.licenses)} | ${route.ms} |`;
    }),
  ];
}
