import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import * as z from 'zod/mini';
import type { Table, TransactItem } from './db';
import type { ItemKey } from './keys';
import { isConditionFailure } from './retry';

/**
 * What a `/license/create-bulk` with a `request_id` set out to make: its
 * generated keys, its creation time and its reset rules, so the same request
 * sent again makes exactly these licenses, and `body_hash` tells a request
 * sent again from another one under the same `request_id`.
 */
export const createBulkPlanSchema = z.lazy(() =>
  z.object({
    license_keys: z.array(z.string()),
    created_at: z.string(),
    hwid_reset_allowed: z.boolean(),
    hwid_reset_interval: z.number(),
    body_hash: z.string(),
    /** The chunks of `license_keys` (by index) written so far: a request sent again skips them. */
    written_chunks: z.optional(z.set(z.number())),
  }),
);
export type CreateBulkPlan = z.infer<typeof createBulkPlanSchema>;

export function createBulkRequestRepo(table: Table) {
  return {
    /**
     * Stores `plan` under the request's key unless a plan is there already,
     * and answers the stored one: the first request's plan, also to the
     * requests that send it again (and to the SDK's own resend of this put).
     */
    async claimCreatePlan(key: ItemKey, plan: CreateBulkPlan, ttl: number): Promise<CreateBulkPlan> {
      try {
        await table.doc.send(
          new PutCommand({
            TableName: table.name,
            Item: { ...key, ...plan, ttl },
            ConditionExpression: 'attribute_not_exists(pk)',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        return plan;
      } catch (error) {
        const stored = (error as { Item?: Parameters<typeof unmarshall>[0] }).Item;
        if (!isConditionFailure(error) || stored === undefined) throw error;
        return createBulkPlanSchema.parse(unmarshall(stored));
      }
    },

    /** Records, in the transaction that writes it, that a chunk of the plan is written. */
    chunkWritten(key: ItemKey, chunk: number): TransactItem {
      return { Update: { TableName: table.name, Key: key, UpdateExpression: 'ADD written_chunks :chunk', ExpressionAttributeValues: { ':chunk': new Set([chunk]) } } };
    },
  };
}
