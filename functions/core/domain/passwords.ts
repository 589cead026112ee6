import bcrypt from 'bcryptjs';

/** bcrypt reads only the first 72 bytes; longer passwords are refused at the edge rather than silently truncated. */
export const maxPasswordBytes = 72;

export function hashPassword(password: string, cost: number): Promise<string> {
  return bcrypt.hash(password, cost);
}

export function verifyPassword(password: string, hash: string): Promise<boolean> {
  return bcrypt.compare(password, hash);
}
