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
