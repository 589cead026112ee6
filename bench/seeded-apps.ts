import type { Deps } from '#core/deps';
import { newLicenseKey } from '#core/ids';
import { batchWrite } from '#data/db';
import { licenseItem } from '#data/items';
import type { License } from '#data/model/license';
import * as owners from '../functions/admin/owners';
import * as licenses from '#data/license.repo';

/** The management calls of the benchmark's owner: a 200 answer's `data`, or an error. */
export type Management = (path: string, body: Record<string, unknown>) => Promise<any>;

export interface SeededApp {
  app_id: string;
  licenses: number;
  /** Keys of licenses spread over the whole app, for /auth. */
  sample: string[];
}

/** Batches in flight while seeding: DynamoDB Local answers more at once, a busy 2-core machine no faster. */
const parallelBatches = 8;

/**
 * An application of the benchmark's team with `count` licenses: one made by
 * /license/create-bulk, the rest its copies (new keys, creation times a
 * millisecond apart) written with BatchWriteItem straight into the store.
 * The copies are built by the repository's own item builder, so they carry
 * every key and index attribute a created license carries. Fast: seeding is
 * not what is measured. Fails when it takes longer than `maxSeconds`.
 */
export async function seedApp(
  deps: Deps,
  management: Management,
  input: { teamId: string; count: number; sampleSize: number; maxSeconds: number },
): Promise<SeededApp> {
  const { app_id } = await owners.createApp(deps, { teamId: input.teamId, name: `bench ${input.count}` });
  const { subscription_id } = await management('/subscription/create', { app_id, name: 'Seeded', level: 1 });
  const [created] = (await management('/license/create-bulk', {
    key_amount: 1,
    app_id,
    subscription_id,
    duration_unit: 'days',
    duration_value: 365,
    tags: ['bench'],
  })) as { key: string }[];
  const key = created!.key;
  const template = (await licenses.get(deps.table, key, input.teamId))!;
  const startedAt = Date.now();
  const firstCreated = Date.parse(template.created_at);
  const copies = input.count - 1;
  const every = Math.max(1, Math.floor(input.count / input.sampleSize));
  const sample = [key];
  const batches = Math.ceil(copies / 25);
  let nextBatch = 0;
  const worker = async () => {
    for (let batch = nextBatch++; batch < batches; batch = nextBatch++) {
      if (Date.now() - startedAt > input.maxSeconds * 1000) throw new Error(`seeding ${input.count} licenses took more than ${input.maxSeconds} s`);
      const licenses: License[] = [];
      for (let i = batch * 25 + 1; i <= Math.min(copies, batch * 25 + 25); i++) {
        const copy: License = { ...template, key: newLicenseKey(), created_at: new Date(firstCreated - i).toISOString() };
        if (i % every === 0 && sample.length < input.sampleSize) sample.push(copy.key);
        licenses.push(copy);
      }
      await batchWrite(
        deps.table,
        licenses.map((license) => ({ PutRequest: { Item: licenseItem(license) } })),
        'licenses',
      );
    }
  };
  await Promise.all(Array.from({ length: parallelBatches }, worker));
  return { app_id, licenses: input.count, sample };
}
