import { createLicensingClient, LicensingApiError, unwrap, type components, type LicensingClient, type paths } from '../../clients/typescript/src/index';

/**
 * The one way the dashboard talks to the service: the public management routes,
 * with the owner's API key in `x-api-key`, to the API origin of config.json only,
 * through the typed owner client (clients/typescript).
 */
const keyItem = 'licensing.apiKey';

/** sessionStorage only: the key dies with the tab and is never in localStorage or a cookie. */
export const session = {
  key: (): string | null => sessionStorage.getItem(keyItem),
  signIn: (apiKey: string) => sessionStorage.setItem(keyItem, apiKey),
  signOut: () => sessionStorage.removeItem(keyItem),
};

/**
 * The link `npm start` prints carries a one-time code (`#code=…`), never the key: the
 * code leaves the address bar and this tab's history before anything else runs, and is
 * traded once at the local server's `sign-in` (beside index.html; nothing answers it on
 * AWS) for the key. Resolves to an error to show when the code is refused.
 */
export async function signInWithLinkCode(): Promise<Error | undefined> {
  const match = /^#code=([A-Za-z0-9_-]+)$/.exec(location.hash);
  if (!match?.[1]) return undefined;
  history.replaceState(null, '', location.pathname + location.search);
  const refused = new Error('This sign-in link was used already or has expired. Stop and start `npm start` again for a new link, or paste the API key it prints.');
  try {
    const response = await fetch('sign-in', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code: match[1] }),
      cache: 'no-store',
    });
    if (!response.ok) return refused;
    const { api_key: apiKey } = (await response.json()) as { api_key?: unknown };
    if (typeof apiKey !== 'string') return refused;
    session.signIn(apiKey);
    return undefined;
  } catch {
    return new Error('The local server could not be reached to sign in. Is `npm start` still running?');
  }
}

let client: LicensingClient | undefined;
let baseUrl = '';

/** The API's base URL from config.json: where Stripe is to send an application's events. */
export const apiUrl = (): string => baseUrl;

/** config.json is written where the dashboard is served: by the stack on deploy, by `npm start` locally. */
export async function loadConfig(): Promise<void> {
  const response = await fetch('config.json', { cache: 'no-store' });
  if (!response.ok) throw new Error(`config.json answered ${response.status}`);
  const config = (await response.json()) as { apiUrl?: unknown };
  if (typeof config.apiUrl !== 'string' || !/^https?:\/\//.test(config.apiUrl)) throw new Error('config.json has no apiUrl');
  baseUrl = config.apiUrl;
  client = createLicensingClient({
    baseUrl: config.apiUrl,
    credentials: 'omit',
    referrerPolicy: 'no-referrer',
    // Someone is waiting at the screen: Retry-After when the gateway sends one, at most 10 s, else 1, 2, 4 s; then the error is shown.
    retry: { delays: [1000, 2000, 4000], maxWaitMs: 10_000 },
  });
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
  CONFLICT: 'The license kept changing while this was saved. Try again.',
  NETWORK: 'The service could not be reached. Check your connection.',
  NOT_FOUND: 'Not found.',
  WEBHOOK_NOT_FOUND: 'This webhook does not exist.',
  DELIVERY_NOT_FOUND: 'This delivery does not exist any more.',
  WEBHOOK_LIMIT_REACHED: 'This application has 10 webhooks already; delete one first.',
  WEBHOOK_DISABLED: 'The webhook is disabled: enable it before sending again.',
  HEADERS_TOO_LARGE: 'The request is too large.',
  METHOD_NOT_ALLOWED: 'The dashboard asked in a way the service does not accept. Reload the page.',
};

/** Fields of the API in an owner's words, for INVALID_INPUT answers (`<field>: <reason>`). */
const fieldWords: Record<string, string> = {
  extend_seconds: 'extension',
  duration_value: 'duration',
  key_amount: 'number of licenses',
  hwid_reset_interval: 'reset interval',
  max_devices: 'number of seats',
  lease_seconds: 'lease',
  offline_token_ttl: 'offline token lifetime',
  license_key: 'license key',
  license_keys: 'list of licenses',
  subscription_id: 'subscription',
  url: 'URL',
  per_page: 'page size',
  hwid: 'HWID',
};

/**
 * An INVALID_INPUT answer in words: the field by its name on screen and whether it
 * was too large, too small or of the wrong form, never the validator's own text.
 */
export function invalidInputWords(detail: string): string {
  const match = /^([\w.[\]]+): (.*)$/s.exec(detail);
  if (!match) return 'Some input is not valid.';
  const field = match[1]!.split('.').filter((part) => !/^\d+$/.test(part)).pop() ?? match[1]!;
  const name = fieldWords[field] ?? field.replace(/_/g, ' ');
  const reason = match[2]!;
  // The service's own reasons are words already ("would make the duration longer than 100 years"); the validator's start with a capital.
  if (/^[a-z]/.test(reason) && !/cursor/.test(reason)) return `The ${name} ${reason}.`;
  const why = /too big/i.test(reason)
    ? 'is too large'
    : /too small/i.test(reason)
      ? 'is too small'
      : /cursor/.test(reason)
        ? 'is out of date: go back to the first page'
        : 'is not in a form the service accepts';
  return `The ${name} ${why}.`;
}

type Listener = () => void;
const connectionListeners = new Set<Listener>();
let unreachable = false;
let pending = 0;
const changed = () => connectionListeners.forEach((listener) => listener());

/**
 * How the dashboard stands with the API, for the outage banner: `unreachable` from a
 * call that could not connect (after the client's retries) until the next call that
 * gets an answer; `pending`, the calls under way (retries included).
 */
export const connection = {
  unreachable: () => unreachable,
  pending: () => pending,
  subscribe(listener: Listener): () => void {
    connectionListeners.add(listener);
    return () => connectionListeners.delete(listener);
  },
};

function setUnreachable(value: boolean) {
  if (value === unreachable) return;
  unreachable = value;
  changed();
}

/** An error code of the API in an owner's words. */
export const errorWords = (code: string): string => words[code] ?? `${code.charAt(0)}${code.slice(1).toLowerCase().replace(/_/g, ' ')}.`;

export class ApiError extends Error {
  constructor(
    readonly code: string,
    readonly detail: string,
    readonly status: number,
  ) {
    super(code === 'INVALID_INPUT' ? invalidInputWords(detail) : errorWords(code));
  }
}

/** The routes that take the owner's API key; the client routes are for the owners' programs. */
/** A client route's refusal (docs/client-api.md): its status and `message`, e.g. `HWID_MISMATCH`. */
export class ClientRouteError extends Error {
  constructor(
    readonly status: number,
    readonly refusal: string,
  ) {
    super(`The service refused the request: ${refusal}`);
  }
}

/**
 * `POST /license-file` with an activation request, as the owner's hand on a customer's
 * behalf: a client route, so no API key goes with it. Resolves to the license data and
 * the file; a refusal is a ClientRouteError with the route's message.
 */
export async function activateFromRequest(request: string): Promise<{ license_file: string; key: string }> {
  if (!client) throw new Error('configuration not loaded');
  const { data, error, response } = await client.POST('/license-file', { body: { request } });
  if (data) return (data as { data: { license_file: string; key: string } }).data;
  const refusal = error as { message?: unknown } | undefined;
  throw new ClientRouteError(response.status, typeof refusal?.message === 'string' ? refusal.message : `HTTP ${response.status}`);
}

export type ManagementPath = Exclude<keyof paths, '/auth' | '/register' | '/reset-hwid' | `/portal/${string}`>;

type Operation<P extends ManagementPath> = paths[P]['post'];
/** A route's request body, as the OpenAPI document gives it. */
export type Body<P extends ManagementPath> = NonNullable<Operation<P>['requestBody']>['content']['application/json'];
/** A route's success answer: `{success, data}`, lists with `next_cursor`. */
export type Answer<P extends ManagementPath> = Operation<P>['responses'][200]['content']['application/json'];

export async function call<P extends ManagementPath>(path: P, body: Body<P>): Promise<Answer<P>> {
  const apiKey = session.key();
  if (!apiKey) throw new ApiError('MISSING_AUTH', '', 401);
  if (!client) throw new Error('configuration not loaded');
  pending += 1;
  changed();
  try {
    // openapi-fetch types a call by a literal path; a screen that picks the path at run time passes a union of them.
    const answer = (await unwrap(client.POST(path as ManagementPath, { body: body as never, headers: { 'x-api-key': apiKey } }))) as Answer<P>;
    setUnreachable(false);
    return answer;
  } catch (error) {
    if (error instanceof LicensingApiError) {
      // A gateway's 502/503/504 without the API's body: the service is not there.
      setUnreachable(!error.errorCode && error.status >= 502);
      throw new ApiError(error.errorCode ?? 'SERVER_ERROR', error.errorCode ? error.message : '', error.status);
    }
    // A success whose body is no JSON.
    if (error instanceof SyntaxError) throw new ApiError('SERVER_ERROR', '', 0);
    setUnreachable(true);
    throw new ApiError('NETWORK', '', 0);
  } finally {
    pending -= 1;
    changed();
  }
}

/** The routes that answer a BulkResult for a list of license keys. */
export type BulkPath = '/license/delete-bulk' | '/license/extend-bulk' | '/license/update-status-bulk' | '/hwid/toggle-lock-bulk';

type Schemas = components['schemas'];
export type App = Schemas['AppListAnswer']['data'][number];
export type Subscription = Schemas['SubscriptionRecord'];
export type License = Schemas['LicenseRecord'];
export type BlacklistEntry = Schemas['BlacklistEntry'];
export type BulkResult = Schemas['BulkResult'];

export type Webhook = Schemas['WebhookListAnswer']['data'][number];
export type WebhookDelivery = Schemas['WebhookDeliveriesAnswer']['data'][number];
