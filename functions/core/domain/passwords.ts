/** bcrypt reads only the first 72 bytes; longer passwords are refused at the edge rather than silently truncated. */
export const maxPasswordBytes = 72;

/**
 * bcryptjs is loaded on the first password a container hashes or compares: a
 * license-key /auth never needs it, and a module imported up front is compiled
 * and run at every cold start (docs/performance.md, "Bundles and cold start").
 */
const bcrypt = () => import('bcryptjs').then((module) => module.default);

export async function hashPassword(password: string, cost: number): Promise<string> {
  return (await bcrypt()).hash(password, cost);
}

export async function verifyPassword(password: string, hash: string): Promise<boolean> {
  return (await bcrypt()).compare(password, hash);
}
