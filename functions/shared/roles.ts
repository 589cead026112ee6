/**
 * API-key roles, each reaching everything the roles before it reach
 * (docs/api-keys.md). Plain data: the stored key's schema, the authorizer and
 * the dashboard all read the same list (functions/access.ts maps each role to
 * the routes it reaches).
 */
export const roles = ['read_only', 'support', 'manager', 'admin'] as const;
export type Role = (typeof roles)[number];

/** A key stored before roles existed has none and keeps the full rights it had. */
export const defaultRole: Role = 'admin';
