import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { Deps } from '#core/deps';
import type { LicenseRecord } from '#core/domain/license-view';
import type { Subscription } from '#data/model/subscription';
import type { HttpResult, TestServer } from './env';
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

/**
 * `/license/create-bulk` under `request_id`, sent again while it answers 503 as
 * docs/management-api.md#time-budget-of-bulk-routes says: on a store too slow for
 * the time budget (a busy machine) each send writes at least one more chunk, so
 * the sends are bounded by the chunks, not by a time. The last answer.
 */
export async function createInBulk(env: TestServer, owner: Owner, body: Record<string, unknown> & { key_amount: number; request_id: string }): Promise<HttpResult> {
  for (let sent = 0; sent <= Math.ceil(body.key_amount / 99); sent++) {
    const response = await env.post('/license/create-bulk', body, owner.auth);
    if (response.status !== 503) return response;
  }
  throw new Error(`create-bulk still answered 503 after a send for each of its chunks`);
}

/**
 * A bulk route whose answer is per key (`extend-bulk` under its `request_id`,
 * `delete-bulk`, `update-status-bulk`, `/hwid/toggle-lock-bulk`), the keys it
 * answered SERVICE_UNAVAILABLE (not started in the time budget, as on a busy
 * machine) sent again until none is left: each send starts at least one of
 * them. The keys' answers, gathered in the order of `license_keys`.
 */
export async function bulkUntilStarted(env: TestServer, owner: Owner, path: string, body: Record<string, unknown> & { license_keys: string[] }) {
  const answers = new Map<string, string | null>();
  let left = body.license_keys;
  while (left.length > 0) {
    const response = await env.post(path, { ...body, license_keys: left }, owner.auth);
    if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${JSON.stringify(response.body)}`);
    const answer = response.body.data as { succeeded: string[]; failed: { license_key: string; error_code: string }[] };
    for (const key of answer.succeeded) answers.set(key, null);
    for (const failure of answer.failed) if (failure.error_code !== 'SERVICE_UNAVAILABLE') answers.set(failure.license_key, failure.error_code);
    left = answer.failed.filter((failure) => failure.error_code === 'SERVICE_UNAVAILABLE').map((failure) => failure.license_key);
  }
  const keys = [...new Set(body.license_keys)];
  return {
    succeeded: keys.filter((key) => answers.get(key) === null),
    failed: keys.flatMap((key) => (answers.get(key) ? [{ license_key: key, error_code: answers.get(key)! }] : [])),
  };
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
