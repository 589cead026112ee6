/**
 * How the portal talks to the service: the public `/portal/…` routes (management
 * body shapes) and, for the activation page, the client route `/license-file`,
 * at the API address config.json names. No API key exists here: a customer is
 * signed in by a session token, which lives in this tab's sessionStorage only.
 */

/** A refusal of the service, carrying its own words (`error` or `message`) to show as sent. */
export class ServiceError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly status: number,
  ) {
    super(message);
  }
}

let apiBase = '';

/** config.json sits beside app.js (the stack writes it on deploy, `npm start` serves it), also for the activation page one folder down. */
export async function loadConfig(): Promise<void> {
  const response = await fetch(new URL('config.json', import.meta.url), { cache: 'no-store' });
  if (!response.ok) throw new Error(`config.json answered ${response.status}`);
  const config = (await response.json()) as { apiUrl?: unknown };
  if (typeof config.apiUrl !== 'string' || !/^https?:\/\//.test(config.apiUrl)) throw new Error('config.json has no apiUrl');
  apiBase = config.apiUrl.replace(/\/+$/, '');
}

const unreachable = () => new ServiceError('The service could not be reached. Check your connection and try again.', 'NETWORK', 0);

async function send(path: string, body: object, token?: string): Promise<{ status: number; json: Record<string, unknown> }> {
  let response: Response;
  try {
    response = await fetch(`${apiBase}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
      credentials: 'omit',
      referrerPolicy: 'no-referrer',
      cache: 'no-store',
    });
  } catch {
    throw unreachable();
  }
  const json = (await response.json().catch(() => undefined)) as Record<string, unknown> | undefined;
  if (!json || typeof json !== 'object') throw new ServiceError(`The service answered ${response.status} without a readable body. Try again.`, 'SERVER_ERROR', response.status);
  return { status: response.status, json };
}

/** A portal route: `{success: true, data}`, or its `{error, error_code}` thrown as a ServiceError. */
export async function portal<T>(path: string, body: object, token?: string): Promise<T> {
  const { status, json } = await send(`/portal/${path}`, body, token);
  if (json.success === true) return json.data as T;
  throw new ServiceError(typeof json.error === 'string' ? json.error : `The service answered ${status}.`, typeof json.error_code === 'string' ? json.error_code : 'SERVER_ERROR', status);
}

/** A client route: `{success: true, message, data}`, or its `{success: false, message}` thrown with the message as sent. */
export async function client<T>(path: string, body: object): Promise<T> {
  const { status, json } = await send(path, body);
  if (json.success === true) return json.data as T;
  const message = typeof json.message === 'string' ? json.message : `The service answered ${status}.`;
  throw new ServiceError(message, message, status);
}

export interface Branding {
  name: string;
  sender_name?: string;
  support_url?: string;
  allow_device_release: boolean;
  allow_license_files: boolean;
}

export interface Session {
  app_id: string;
  email: string;
  token: string;
  expires_at: string;
}

const sessionItem = 'portal.session';
const pendingItem = 'portal.pending';

function read<T>(item: string): T | undefined {
  try {
    return JSON.parse(sessionStorage.getItem(item) ?? 'null') ?? undefined;
  } catch {
    return undefined;
  }
}

/**
 * sessionStorage only: the token and the email die with the tab, never in localStorage or a
 * cookie. The email waits there between the two steps of signing in, so the emailed link
 * opened in the same browser finishes them.
 */
export const store = {
  session(appId: string): Session | undefined {
    const session = read<Session>(sessionItem);
    return session?.app_id === appId && Date.parse(session.expires_at) > Date.now() ? session : undefined;
  },
  signedIn: (session: Session) => {
    sessionStorage.setItem(sessionItem, JSON.stringify(session));
    sessionStorage.removeItem(pendingItem);
  },
  signedOut: () => sessionStorage.removeItem(sessionItem),
  pendingEmail: (appId: string): string | undefined => {
    const pending = read<{ app_id: string; email: string }>(pendingItem);
    return pending?.app_id === appId ? pending.email : undefined;
  },
  codeSent: (appId: string, email: string) => sessionStorage.setItem(pendingItem, JSON.stringify({ app_id: appId, email })),
  forgetEmail: () => sessionStorage.removeItem(pendingItem),
};
