import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { Deps } from '#core/deps';
import type { LicenseRecord } from '#core/domain/license-view';
import type { Subscription } from '#data/model/subscription';
import type { TestServer } from './env';
import type { Owner } from './owners';

/** A 30-day license created over HTTP, as an owner would; fails the test on anything but 200. */
export async function createLicenseOverHttp(env: TestServer, owner: Owner, subscription: Subscription, extra: Record<string, unknown> = {}): Promise<LicenseRecord> {
  const response = await env.post(
    '/license/create',
    { app_id: subscription.app_id, subscription_id: subscription.subscription_id, duration_unit: 'days', duration_value: 30, ...extra },
    owner.auth,
  );
  if (response.status !== 200) throw new Error(`create answered ${response.status}: ${JSON.stringify(response.body)}`);
  return response.body.data as LicenseRecord;
}

/** Every license of an app, page after page through `next_cursor`, with the pages' sizes. */
export async function listAllLicenses(env: TestServer, owner: Owner, body: Record<string, unknown>) {
  const licenses: any[] = [];
  const pageSizes: number[] = [];
  let cursor: string | null = null;
  do {
    const response = await env.post('/license/get-bulk', { ...body, ...(cursor ? { cursor } : {}) }, owner.auth);
    if (response.status !== 200) throw new Error(`get-bulk answered ${response.status}: ${JSON.stringify(response.body)}`);
    licenses.push(...response.body.data);
    pageSizes.push(response.body.data.length);
    cursor = response.body.next_cursor;
  } while (cursor);
  return { licenses, pageSizes };
}

/** Every item of the test's table, in a stable order, to prove a request changed nothing. */
export async function scanTable(deps: Deps): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await deps.table.doc.send(new ScanCommand({ TableName: deps.table.name, ExclusiveStartKey: startKey }));
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items.sort((a, b) => `${a.pk}|${a.sk}`.localeCompare(`${b.pk}|${b.sk}`));
}
