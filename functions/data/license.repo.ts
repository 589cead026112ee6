import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { getItem, isConditionFailure, putNew, type Table } from './db';
import { keys } from './keys';

/** Every field of a license as stored; management answers with all of them, /auth with its 13. */
export const licenseSchema = z.object({
  key: z.string(),
  app_id: z.string(),
  /** Owner of the app, kept on the license so an ownership check needs no second read. */
  team_id: z.string(),
  subscription_id: z.string(),
  status: z.enum(['active', 'paused']),
  created_at: z.string(),
  /** null until first use: the clock starts at activation. */
  expires_at: z.string().nullable(),
  /** Seconds. */
  initial_duration: z.number().int().nonnegative(),
  first_used_at: z.string().nullable(),
  last_login: z.string().nullable(),
  hwid: z.string().nullable(),
  hwid_lock: z.boolean(),
  hwid_reset_allowed: z.boolean(),
  /** Seconds between two HWID resets. */
  hwid_reset_interval: z.number().int().nonnegative(),
  last_hwid_reset_at: z.string().nullable(),
  username: z.string().nullable(),
  tags: z.array(z.string()),
  metadata: z.record(z.string(), z.unknown()),
});
export type License = z.infer<typeof licenseSchema>;

export function licenseItem(license: License): Record<string, unknown> {
  return {
    ...keys.license(license.key),
    ...keys.licenseByApp(license.app_id, license.created_at, license.key),
    ...license,
  };
}

export function parseLicense(item: Record<string, unknown>): License {
  return licenseSchema.parse(item);
}

export function createLicenseRepo(table: Table) {
  return {
    async get(licenseKey: string): Promise<License | undefined> {
      const item = await getItem(table, keys.license(licenseKey));
      return item ? parseLicense(item) : undefined;
    },

    /** False when the key is taken. */
    create(license: License): Promise<boolean> {
      return putNew(table, licenseItem(license));
    },

    /**
     * Sets HWID settings on a license of this team, only while every field in
     * `expected` still holds the value it was read with (how a flip stays a flip
     * under concurrency). The team check in the same condition makes another
     * owner's license indistinguishable from a missing one. Undefined when any
     * condition fails; otherwise the license as stored afterwards.
     */
    async updateHwidSettings(
      licenseKey: string,
      teamId: string,
      fields: Partial<HwidSettings>,
      expected: Partial<HwidSettings> = {},
    ): Promise<License | undefined> {
      const names: Record<string, string> = { '#team_id': 'team_id' };
      const values: Record<string, unknown> = { ':team_id': teamId };
      const sets: string[] = [];
      const conditions = ['#team_id = :team_id'];
      for (const [field, value] of Object.entries(fields)) {
        names[`#${field}`] = field;
        values[`:${field}`] = value;
        sets.push(`#${field} = :${field}`);
      }
      for (const [field, value] of Object.entries(expected)) {
        names[`#${field}`] = field;
        values[`:expected_${field}`] = value;
        conditions.push(`#${field} = :expected_${field}`);
      }
      try {
        const { Attributes } = await table.doc.send(
          new UpdateCommand({
            TableName: table.name,
            Key: keys.license(licenseKey),
            UpdateExpression: `SET ${sets.join(', ')}`,
            ConditionExpression: conditions.join(' AND '),
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: values,
            ReturnValues: 'ALL_NEW',
          }),
        );
        return parseLicense(Attributes!);
      } catch (error) {
        if (isConditionFailure(error)) return undefined;
        throw error;
      }
    },
  };
}

export type HwidSettings = Pick<License, 'hwid_lock' | 'hwid_reset_allowed' | 'hwid_reset_interval'>;
