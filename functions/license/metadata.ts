/**
 * What DynamoDB can store of a JSON object, checked before anything is written:
 * a value DynamoDB refuses would otherwise pass validation and fail the write
 * with a 500. The walk keeps its own stack, so a body nested 20000 deep costs a
 * loop, not the call stack.
 */
import { isPlainObject } from '#shared/plain-object';

export const metadataLimits = {
  bytes: 4096,
  /** DynamoDB nests at most 32 levels; the license item and its map take some, and 16 is plenty for metadata. */
  depth: 16,
} as const;

/**
 * DynamoDB stores magnitudes from 1e-130 to below 1e126, and zero. Above 2^53
 * a JavaScript number is an integer that JSON parsing may already have changed
 * (the SDK refuses to store one as it could be imprecise): such values belong
 * in strings.
 */
const smallestMagnitude = 1e-130;
const largestMagnitude = Number.MAX_SAFE_INTEGER;

/** Names that rebuild an object's prototype when a careless reader copies the metadata. */
const forbiddenKeys = new Set(['__proto__', 'constructor', 'prototype']);

/** Why `value` cannot be stored as license metadata, or undefined when it can. */
export function metadataProblem(value: unknown): string | undefined {
  if (!isPlainObject(value)) return 'must be a JSON object';
  const pending: { node: unknown; depth: number }[] = [{ node: value, depth: 1 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { node, depth } = next;
    if (typeof node === 'number') {
      const magnitude = Math.abs(node);
      if (magnitude !== 0 && (magnitude < smallestMagnitude || magnitude > largestMagnitude)) {
        return `numbers must be 0 or of a magnitude from ${smallestMagnitude} to ${largestMagnitude} (send larger ones as strings)`;
      }
      continue;
    }
    if (typeof node !== 'object' || node === null) continue;
    if (depth > metadataLimits.depth) return `must nest at most ${metadataLimits.depth} levels`;
    if (Array.isArray(node)) {
      for (const item of node) pending.push({ node: item, depth: depth + 1 });
      continue;
    }
    for (const [key, item] of Object.entries(node)) {
      if (key === '') return 'keys must not be empty';
      if (forbiddenKeys.has(key)) return `must not use the key "${key}"`;
      pending.push({ node: item, depth: depth + 1 });
    }
  }
  if (Buffer.byteLength(JSON.stringify(value), 'utf8') > metadataLimits.bytes) return `must be at most ${metadataLimits.bytes} bytes as JSON`;
  return undefined;
}
