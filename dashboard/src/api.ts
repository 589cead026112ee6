/**
 * The one way the dashboard talks to the service: the public management routes,
 * with the owner's API key in `x-api-key`, to the API origin of config.json only.
 */
const keyItem = 'licensing.apiKey';

/** sessionStorage only: the key dies with the tab and is never in localStorage or a cookie. */
export const session = {
  key: (): string | null => sessionStorage.getItem(keyItem),
  signIn: (apiKey: string) => sessionStorage.setItem(keyItem, apiKey),
  signOut: () => sessionStorage.removeItem(keyItem),
};

/** A key given as `#key=…` is taken into the session and removed from the address bar and history. */
export function takeKeyFromFragment(): void {
  const match = /^#key=([^&]+)/.exec(location.hash);
  if (!match?.[1]) return;
  session.signIn(decodeURIComponent(match[1]));
  history.replaceState(null, '', location.pathname + location.search);
}

let apiBase: string | undefined;

/** config.json is written where the dashboard is served: by the stack on deploy, by `npm start` locally. */
export async function loadConfig(): Promise<void> {
  const response = await fetch('config.json', { cache: 'no-store' });
  if (!response.ok) throw new Error(`config.json answered ${response.status}`);
  const config = (await response.json()) as { apiUrl?: unknown };
  if (typeof config.apiUrl !== 'string' || !/^https?:\/\//.test(config.apiUrl)) throw new Error('config.json has no apiUrl');
  apiBase = config.apiUrl.replace(/\/+$/, '');
}

const words: Record<string, string> = {
  MISSING_AUTH: 'No API key was sent. Sign in again.',
  INVALID_API_KEY: 'This API key is not valid or has been revoked.',
  ACCESS_DENIED: 'Your API key has no access to this.',
  APP_NOT_FOUND: 'This application does not exist.',
  LICENSE_NOT_FOUND: 'No license with this key in your applications.',
  SUBSCRIPTION_NOT_FOUND: 'This subscription does not exist.',
  INVALID_INPUT: 'Some input is not valid',
  RATE_LIMITED: 'Too many requests; tried again several times without success. Wait a moment.',
  SERVER_ERROR: 'The service had an unexpected error. Try again.',
  PAYLOAD_TOO_LARGE: 'The request is too large.',
  USERNAME_TAKEN: 'Another license of this application already uses this username.',
  LICENSE_KEY_TAKEN: 'A license with this key already exists.',
  HWID_NOT_FOUND: 'This device is not bound to the license.',
  HWID_IN_USE: 'This HWID is bound to another license of a one-key-per-device subscription.',
  BLACKLIST_ENTRY_NOT_FOUND: 'This blacklist entry does not exist.',
  NOT_IMPLEMENTED: 'The service does not offer this yet.',
  CONFLICT: 'The license kept changing while this was saved. Try again.',
  NETWORK: 'The service could not be reached. Check your connection.',
};

export class ApiError extends Error {
  constructor(
    readonly code: string,
    readonly detail: string,
    readonly status: number,
  ) {
    super(`${words[code] ?? code.toLowerCase().replace(/_/g, ' ')}${code === 'INVALID_INPUT' && detail ? `: ${detail}` : ''}`);
  }
}

export interface Listed<T> {
  data: T;
  next_cursor?: string | null;
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** Backoff for 429: Retry-After when the gateway sends one, else 1, 2, 4 s; then the error is shown. */
const retryDelays = [1000, 2000, 4000];

export async function call<T>(path: string, body: object): Promise<Listed<T>> {
  const apiKey = session.key();
  if (!apiKey) throw new ApiError('MISSING_AUTH', '', 401);
  if (!apiBase) throw new Error('configuration not loaded');
  for (let attempt = 0; ; attempt += 1) {
    let response: Response;
    try {
      response = await fetch(`${apiBase}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
        body: JSON.stringify(body),
        credentials: 'omit',
        referrerPolicy: 'no-referrer',
      });
    } catch {
      throw new ApiError('NETWORK', '', 0);
    }
    const delay = retryDelays[attempt];
    if (response.status === 429 && delay !== undefined) {
      const retryAfter = Number(response.headers.get('retry-after'));
      await sleep(Number.isFinite(retryAfter) && retryAfter > 0 ? Math.min(retryAfter * 1000, 10_000) : delay);
      continue;
    }
    const parsed = (await response.json().catch(() => ({}))) as { success?: boolean; data?: T; next_cursor?: string | null; error?: string; error_code?: string };
    if (response.ok && parsed.success) return { data: parsed.data as T, next_cursor: parsed.next_cursor };
    throw new ApiError(parsed.error_code ?? 'SERVER_ERROR', parsed.error ?? '', response.status);
  }
}

export interface App {
  app_id: string;
  name: string;
  status: string;
  created_at: string;
}

export interface Subscription {
  subscription_id: string;
  app_id: string;
  name: string;
  level: number;
  single_key_per_hwid: boolean;
  status: 'active' | 'inactive';
  created_at: string;
}

export interface License {
  key: string;
  app_id: string;
  subscription_id: string;
  subscription_name: string;
  subscription_level: number;
  status: 'active' | 'paused';
  created_at: string;
  expires_at: string | null;
  initial_duration: string;
  first_used_at: string | null;
  last_login: string | null;
  hwid: string | null;
  /** Present only when the license has more than one seat (max_devices > 1). */
  hwids?: string[];
  max_devices?: number;
  hwid_lock: boolean;
  hwid_reset_allowed: boolean;
  hwid_reset_interval: number;
  last_hwid_reset_at: string | null;
  username: string | null;
  tags: string[];
  metadata: Record<string, unknown>;
}

export interface BlacklistEntry {
  type: 'country' | 'asn' | 'ip' | 'hwid';
  value: string;
  reason?: string | null;
  created_at: string;
}

export interface BulkResult {
  succeeded: string[];
  failed: { license_key: string; error_code: string }[];
}
