import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';

/**
 * One-time sign-in codes for the link `npm start` prints. A browser records every
 * address it visits in its history database before the page can remove anything
 * from the address bar, so the link carries a code instead of the API key: the
 * dashboard trades it once, here, for the key, and a used or expired code is refused.
 * Local server only: nothing of it is deployed, and no route of functions/routes.ts serves it.
 */
export interface SignInCodes {
  /** A new code for `apiKey`, valid once within the lifetime. */
  mint(apiKey: string): string;
  /** The key of a code not used before and not expired; the code is spent either way. */
  redeem(code: string): string | undefined;
}

/** Long enough to click the link after the banner appears, short enough that a copied link soon means nothing. */
export const signInCodeLifetimeMs = 15 * 60_000;

export function createSignInCodes({ lifetimeMs = signInCodeLifetimeMs, now = Date.now }: { lifetimeMs?: number; now?: () => number } = {}): SignInCodes {
  const codes = new Map<string, { apiKey: string; expiresAt: number }>();
  return {
    mint(apiKey) {
      const code = randomBytes(24).toString('base64url');
      codes.set(code, { apiKey, expiresAt: now() + lifetimeMs });
      return code;
    },
    redeem(code) {
      const entry = codes.get(code);
      codes.delete(code);
      return entry && entry.expiresAt > now() ? entry.apiKey : undefined;
    },
  };
}

/** The path the dashboard posts `{code}` to, on its own origin: `/dashboard/sign-in`. */
export const signInPath = '/dashboard/sign-in';

/** The most a sign-in body may hold: `{"code": …}` is some 50 bytes. */
export const signInBodyBytes = 1024;

/**
 * Answers POST /dashboard/sign-in, whose body `text` the server read:
 * `{api_key}` for a good code, else 400 with `SIGN_IN_CODE_INVALID`. Same
 * origin as the dashboard, so no CORS; never cached.
 */
export function redeemSignInCode(codes: SignInCodes, text: string, response: ServerResponse): void {
  const headers = { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' };
  let code: unknown;
  try {
    code = (JSON.parse(text) as { code?: unknown }).code;
  } catch {
    code = undefined;
  }
  const apiKey = typeof code === 'string' ? codes.redeem(code) : undefined;
  if (apiKey) response.writeHead(200, headers).end(JSON.stringify({ api_key: apiKey }));
  else response.writeHead(400, headers).end(JSON.stringify({ error: 'This sign-in link was used already or has expired.', error_code: 'SIGN_IN_CODE_INVALID' }));
}
