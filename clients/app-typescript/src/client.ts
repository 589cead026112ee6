import { randomUUID } from 'node:crypto';
import { LicenseError } from './errors.js';
import { Heartbeat, type HeartbeatOptions } from './heartbeat.js';
import { machineFingerprint } from './machine-id.js';
import { loadToken, namesLicenseAndDevice, peekClaims, storeToken, verifyOfflineToken, type OfflineTokenClaims } from './offline-token.js';
import { pinKey, type PinnedKey, type PublicJwk } from './signature.js';
import { post, type TransportOptions } from './transport.js';
import type { Credentials, LicenseData, UsageCounter } from './types.js';

export interface LicenseClientOptions {
  /** The service's base URL, e.g. the stack's `ApiUrl` output. */
  url: string;
  /** The application's id. */
  appId: string;
  /** The application's public key, pinned in the program: `public_key_pem` or `jwk` of `/app/signing-key`. */
  publicKey: string | PublicJwk;
  /** Where the last offline token is kept; without it there is no offline use. */
  tokenFile?: string;
  /** The longest a call may take, retries included, in milliseconds; 10 000 unless set. */
  timeoutMs?: number;
  /** The clock offline tokens and heartbeats go by, in milliseconds since the epoch; `Date.now` unless set. */
  now?: () => number;
}

export type WithDevice = Credentials & { hwid?: string };

/** An answer that verified. `offline` is false: the service answered. */
export interface OnlineResult<Data> {
  message: string;
  data: Data;
  offline: false;
}

/** A check that the service could not answer, granted from the stored offline token: `data` is its claims. */
export interface OfflineResult {
  message: 'OFFLINE_TOKEN_VALID';
  data: OfflineTokenClaims;
  offline: true;
}

export type CheckResult = OnlineResult<LicenseData> | OfflineResult;

const credentialsOf = (options: Credentials): Record<string, string> =>
  options.license !== undefined ? { license: options.license } : { username: options.username, password: options.password };

const sameUser = (a: string, b: string) => a.trim().normalize('NFC').toLowerCase() === b.trim().normalize('NFC').toLowerCase();

export class LicenseClient {
  readonly appId: string;
  private readonly transport: TransportOptions;
  private readonly pinned: PinnedKey;
  private readonly tokenFile: string | undefined;
  private readonly now: () => number;
  private fingerprint: Promise<string> | undefined;

  constructor(options: LicenseClientOptions) {
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(options.appId)) throw new TypeError('appId is no UUID');
    this.appId = options.appId;
    this.pinned = pinKey(options.publicKey);
    this.tokenFile = options.tokenFile;
    this.now = options.now ?? Date.now;
    this.transport = { url: options.url, pinned: this.pinned, timeoutMs: options.timeoutMs ?? 10_000 };
  }

  private call(path: string, fields: Record<string, unknown>) {
    return post(this.transport, path, { app_id: this.appId, ...fields });
  }

  /**
   * Authenticates (and on first use activates) the license: a verified answer of
   * the service, or, when the service cannot be reached and a token file is set,
   * the stored offline token while it verifies, is unexpired and names this
   * license and device.
   */
  async check(options: WithDevice): Promise<CheckResult> {
    try {
      return await this.authenticate(options, this.tokenFile === undefined ? {} : { offline_token: true });
    } catch (error) {
      if (error instanceof LicenseError && error.code === 'NETWORK_ERROR') return this.offline(options, error);
      throw error;
    }
  }

  /** Holds this device's floating seat for `seconds` (until the license's expiry at the latest) and keeps its offline token for working offline. */
  async borrow(options: WithDevice & { hwid: string; seconds: number }): Promise<OnlineResult<LicenseData>> {
    const { seconds, ...rest } = options;
    return this.authenticate(rest, { borrow_seconds: seconds });
  }

  /** Gives this device's floating seat back at once. */
  async release(options: WithDevice & { hwid: string }): Promise<OnlineResult<LicenseData>> {
    return this.online<LicenseData>('/release', options);
  }

  /** Releases the device named, or every device of the license, so another computer can take it. */
  async resetHwid(options: WithDevice): Promise<OnlineResult<LicenseData>> {
    return this.online<LicenseData>('/reset-hwid', options);
  }

  /** Sets or replaces the username and password of a license. */
  async register(options: { license: string; username: string; password: string }): Promise<OnlineResult<undefined>> {
    const { message } = await this.call('/register', { license: options.license, username: options.username, password: options.password });
    return { message, data: undefined, offline: false };
  }

  /**
   * Counts `amount` (1 unless given) against a usage counter. The call's
   * `usage_id` (generated unless given) is sent with each of its retries, so a
   * retry after a lost answer counts once.
   */
  async recordUsage(options: WithDevice & { counter: string; amount?: number; usageId?: string }): Promise<OnlineResult<UsageCounter>> {
    const { counter, amount = 1, usageId = randomUUID(), ...rest } = options;
    return this.online<UsageCounter>('/usage', rest, { counter, amount, usage_id: usageId });
  }

  /**
   * Takes or renews this device's floating seat now, then keeps renewing it at
   * about half the lease; see `Heartbeat`.
   */
  async startHeartbeat(options: HeartbeatOptions): Promise<Heartbeat> {
    return Heartbeat.start(
      {
        renew: async () => (await this.authenticate(options, {})).data,
        release: async () => void (await this.release(options)),
        now: this.now,
      },
      options.onLost,
    );
  }

  /** This machine's fingerprint for this application, for programs with no HWID of their own (the README says what it is made of). */
  machineId(): Promise<string> {
    this.fingerprint ??= machineFingerprint(this.appId);
    return this.fingerprint;
  }

  private async online<Data>(path: string, options: WithDevice, extra: Record<string, unknown> = {}): Promise<OnlineResult<Data>> {
    const { message, data } = await this.call(path, { ...credentialsOf(options), ...(options.hwid === undefined ? {} : { hwid: options.hwid }), ...extra });
    return { message, data: data as Data, offline: false };
  }

  /** `/auth`; a token in the answer is checked (this request's nonce, license and device) and kept. */
  private async authenticate(options: WithDevice, extra: Record<string, unknown>): Promise<OnlineResult<LicenseData>> {
    const { message, data, nonce } = await this.call('/auth', { ...credentialsOf(options), ...(options.hwid === undefined ? {} : { hwid: options.hwid }), ...extra });
    const license = data as LicenseData;
    if (license.offline_token !== undefined) {
      await verifyOfflineToken(license.offline_token, this.pinned, { appId: this.appId, license: license.key, hwid: options.hwid, nonce });
      if (this.tokenFile !== undefined) await storeToken(this.tokenFile, { token: license.offline_token, ...(options.username === undefined ? {} : { username: options.username }) });
    }
    return { message, data: license, offline: false };
  }

  private async offline(options: WithDevice, unreachable: LicenseError): Promise<OfflineResult> {
    const stored = this.tokenFile === undefined ? undefined : await loadToken(this.tokenFile);
    if (stored === undefined) throw unreachable;
    if (options.username !== undefined && (stored.username === undefined || !sameUser(stored.username, options.username))) throw unreachable;
    // A token of another license or device is no answer to this check: the failure stays the network's.
    const claims = await peekClaims(stored.token);
    if (claims === undefined || !namesLicenseAndDevice({ sub: claims.sub ?? '', hwid: claims.hwid ?? null, hwids: claims.hwids ?? [] }, { license: options.license, hwid: options.hwid })) {
      throw unreachable;
    }
    const verified = await verifyOfflineToken(stored.token, this.pinned, { appId: this.appId, license: options.license, hwid: options.hwid, now: this.now() });
    return { message: 'OFFLINE_TOKEN_VALID', data: verified, offline: true };
  }
}
