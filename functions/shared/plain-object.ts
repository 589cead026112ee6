/** A JSON object: not null, not an array. Client bodies that are JSON but not one are read as an empty one. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
