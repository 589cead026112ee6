import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { licenseItem } from '#data/items';
import * as licenses from '#data/license.repo';
import * as lookups from '#data/lookup.repo';
import { metered, type ScaleContext } from './scale';
import { seedApp, type SeededApp } from './seeded-apps';

/** The customer the figures are of: three licenses of the application carry this address. */
const customer = 'bench-customer@example.com';
const customerLicenses = 3;

export interface PortalUnits {
  licenses_small: number;
  licenses_large: number;
  round_trips_small: number;
  round_trips_large: number;
  read_units_small: number;
  read_units_large: number;
}

/**
 * `/portal/licenses` for a customer of 3 licenses, in an application of 100 licenses and in one of
 * 2,000: its DynamoDB round trips and read units, which must not grow with the application (the
 * method is described in docs/performance.md). The customer signs in as customers do, by the code the outbox holds.
 */
export async function measurePortalLicenses(context: ScaleContext, outbox: string): Promise<PortalUnits> {
  const small = await portalApp(context, 100);
  const large = await portalApp(context, 2000);
  await context.quiesce();
  const [atSmall, atLarge] = [await meteredLicenses(context, await signedIn(context, outbox, small)), await meteredLicenses(context, await signedIn(context, outbox, large))];
  return {
    licenses_small: small.licenses,
    licenses_large: large.licenses,
    round_trips_small: atSmall.roundTrips,
    round_trips_large: atLarge.roundTrips,
    read_units_small: atSmall.readUnits,
    read_units_large: atLarge.readUnits,
  };
}

/**
 * An application of `count` licenses with its portal on, three of them the customer's. The
 * events consumer, stopped while the bench meters, would write their lookup entries from the
 * stream; they are written here as it writes them.
 */
async function portalApp(context: ScaleContext, count: number): Promise<SeededApp> {
  const app = await seedApp(context.deps, context.management, { teamId: context.teamId, count, sampleSize: customerLicenses, maxSeconds: 120 });
  await context.management('/app/settings', { app_id: app.app_id, portal: { enabled: true } });
  for (const key of app.sample) {
    await context.management('/license/update-email', { license_key: key, email: customer });
    const license = (await licenses.get(context.deps.table, key, context.teamId))!;
    await lookups.apply(context.deps.table, lookups.lookupChanges(undefined, licenseItem(license)));
  }
  return app;
}

async function post(context: ScaleContext, path: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  const answer = await fetch(`${context.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const text = await answer.text();
  if (answer.status >= 300) throw new Error(`${path} answered ${answer.status}: ${text}`);
  return JSON.parse(text) as { data?: any };
}

/** A session token of the customer for the application: sign-in, the code from the newest outbox message, verify. */
async function signedIn(context: ScaleContext, outbox: string, app: SeededApp): Promise<string> {
  const before = new Set(readdirSync(outbox));
  await post(context, '/portal/sign-in', { app_id: app.app_id, email: customer });
  const sent = readdirSync(outbox).filter((file) => !before.has(file));
  if (sent.length !== 1) throw new Error(`a sign-in wrote ${sent.length} messages to the outbox`);
  const code = /\b(\d{6})\b/.exec(readFileSync(join(outbox, sent[0]!), 'utf8'))?.[1];
  if (code === undefined) throw new Error('the sign-in message holds no 6-digit code');
  const verified = await post(context, '/portal/verify', { app_id: app.app_id, email: customer, code });
  return verified.data.token as string;
}

/** The median round trips and read units of /portal/licenses for the session, after one request that checks its answer. */
async function meteredLicenses(context: ScaleContext, token: string): Promise<{ roundTrips: number; readUnits: number }> {
  const session = { authorization: `Bearer ${token}` };
  const first = await post(context, '/portal/licenses', {}, session);
  if (!Array.isArray(first.data) || first.data.length !== customerLicenses) throw new Error(`/portal/licenses answered ${JSON.stringify(first.data).slice(0, 200)}`);
  const units = await metered(context, '/portal/licenses', '{}', session);
  if (units.read === null || units.roundTrips === null) throw new Error(`/portal/licenses took more than the scale bench's request timeout`);
  return { roundTrips: units.roundTrips, readUnits: units.read };
}

export function portalBudgets(units: PortalUnits) {
  return [
    {
      budget: `/portal/licenses (a customer of ${customerLicenses} licenses): no more read units for ${units.licenses_large} licenses in the application than for ${units.licenses_small}`,
      value: `${units.read_units_large} / ${units.read_units_small}`,
      pass: units.read_units_large <= units.read_units_small,
    },
  ];
}
