import { conditional, putItem, type Table, type TransactItem } from './db';
import { condition, conditions } from './expressions';
import type { ItemKey } from './keys';
import { createBulkPlanSchema, type CreateBulkPlan } from './model/bulk-request';

/**
 * Stores `plan` under the request's key unless a plan is there already, and
 * answers the stored one: the first request's plan, also to the requests
 * that send it again (and to the SDK's own resend of this put).
 */
export async function claimCreatePlan(table: Table, key: ItemKey, plan: CreateBulkPlan, ttl: number): Promise<CreateBulkPlan> {
  const written = await conditional(putItem(table, { ...key, ...plan, ttl }, { condition: condition(conditions.isNew), unstamped: true, oldOnFailure: true }));
  if (written.held) return plan;
  if (written.item === undefined) throw written.error;
  return createBulkPlanSchema.parse(written.item);
}

/** Records, in the transaction that writes it, that a chunk of the plan is written. */
export function chunkWritten(table: Table, key: ItemKey, chunk: number): TransactItem {
  return { Update: { TableName: table.name, Key: key, UpdateExpression: 'ADD written_chunks :chunk', ExpressionAttributeValues: { ':chunk': new Set([chunk]) } } };
}
