import * as z from 'zod/mini';
import { en } from 'zod/locales';
import type { Side } from '../../routes';
import { badClientRequest, invalidInput, type ServiceError } from './errors';

// zod/mini (a fifth of classic zod's size, which every cold start parses) has
// no messages of its own: management answers name the rule in English.
z.config(en());

/**
 * Turns a zod failure into the side's 400. Client schemas carry the exact messages
 * of docs/client-api.md and are ordered field by field, so the first issue is the
 * one that page's check order puts first; management answers name the failing field.
 */
export function validate<S extends z.ZodMiniType>(side: Side, schema: S, body: unknown): z.infer<S> {
  const field = side === 'management' ? fieldWithProtoKey(body) : undefined;
  if (field !== undefined) throw invalidInput(`${field}: must not use the key "__proto__"`);
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  throw validationError(side, result.error);
}

function validationError(side: Side, error: z.core.$ZodError): ServiceError {
  const issue = error.issues[0]!;
  if (side === 'client') return badClientRequest(issue.message);
  // zod reports an unknown field at its object; the message starts with the field itself, as every other does.
  if (issue.code === 'unrecognized_keys') return invalidInput(`${[...issue.path, issue.keys[0]].map(String).join('.')}: is not a field of this route`);
  const field = issue.path.map(String).join('.');
  return invalidInput(field ? `${field}: ${issue.message}` : issue.message);
}

/**
 * The field of a management body that holds a `__proto__` key at any depth, if
 * any: no field takes one. zod's records skip that key unseen (assigning it
 * would replace the result's prototype), so `usage_limits` or `prices` would
 * silently lose it; the document client cannot store it either (it builds
 * maps by assignment too); and a careless reader of the events that echo a map
 * could trip on it. A `__proto__` field itself is left to the route's schema,
 * as any field it does not take. The walk keeps its own stack, so a deep body
 * costs a loop.
 */
function fieldWithProtoKey(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  for (const [field, value] of Object.entries(body)) {
    const pending: unknown[] = [value];
    while (pending.length > 0) {
      const node = pending.pop();
      if (typeof node !== 'object' || node === null) continue;
      if (Object.hasOwn(node, '__proto__')) return field;
      for (const inner of Object.values(node)) pending.push(inner);
    }
  }
  return undefined;
}
