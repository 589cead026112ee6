import { randomBytes, randomUUID } from 'node:crypto';
import { invalidSignature, LicenseError } from './errors.js';
import { Heartbeat, type HeartbeatOptions } from './heartbeat.js';
import { checkClaims, encodeCode, mismatch, openLicenseFile, peekLicense, type FileDevice, type LicenseFileClaims } from './license-file.js';
import { machineFingerprint } from './machine-id.js';
import { forgetToken, loadToken, namesLicenseAndDevice, peekClaims, storeToken, verifyOfflineToken, type OfflineTokenClaims } from './offline-token.js';
import { pinKey, type PinnedKey, type PublicJwk } from './signature.js';
import { ClientState } from './state.js';
import { post, type TransportOptions } from './transport.js';
import type { Credentials, LicenseData, LicenseFileData, TrialData, UsageCounter } from './types.js';

export interface LicenseClientOptions {
  /** The service's base URL, e.g. the stack's `ApiUrl` output. Without it the client never goes online: `check` answers from the stored license file or token. */
  url?: string;
  /** The application's id. */
  appId: string;
  /** The application's public key, pinned in the program: `public_key_pem` or `jwk` of `/app/signing-key`. */
  publicKey: string | PublicJwk;
  /** Where the last offline token is kept; `offline-token.json` in `stateDir` unless set. Without either there is no offline use. */
  tokenFile?: string;
  /** The folder the client keeps its state in: the offline token, the license file (`license.lic`), activation requests waiting for their file, the latest time seen. */
  stateDir?: string;
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

/** A check that the service could not answer, granted from the stored license file: `data` is its claims, `data.data` the license data it carries. */
export interface LicenseFileOfflineResult {
  message: 'LICENSE_FILE_VALID';
  data: LicenseFileClaims;
  offline: true;
}

export type CheckResult = OnlineResult<LicenseData> | OfflineResult | LicenseFileOfflineResult;

/** A license file fetched online, verified; `claims` are the file's. */
export type LicenseFileResult = OnlineResult<LicenseFileData> & { claims: LicenseFileClaims };

/** An activation request: the text to hand over, and the portal's link holding it when a portal URL was given (for a QR code). */
export interface ActivationRequest {
  request: string;
  link?: string;
}

/** What a license file is asked for with: its lifetime in seconds (the application's longest unless set) and whether it is encrypted for the device. */
export interface LicenseFileOptions {
  lifetimeSeconds?: number;
  encrypt?: boolean;
}

const credentialsOf = (options: Credentials): Record<string, string> =>
  options.license !== undefined ? { license: options.license } : { username: options.username, password: options.password };

/** A token is issued at the service's time (nbf = iat): a computer whose clock is a little behind must not refuse a stored token it has just been given. */
const storedTokenLeewaySeconds = 60;

const sameUser = (a: string, b: string) => a.trim().normalize('NFC').toLowerCase() === b.trim().normalize('NFC').toLowerCase();

export class LicenseClient {
  readonly appId: string;
  private readonly transport: TransportOptions | undefined;
  private readonly pinned: PinnedKey;
  private readonly state: ClientState;
  private readonly now: () => number;
  private fingerprint: Promise<string> | undefined;

  constructor(options: LicenseClientOptions) {
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(options.appId)) throw new TypeError('appId is no UUID');
    this.appId = options.appId;
    this.pinned = pinKey(options.publicKey);
    this.state = new ClientState(options);
    this.now = options.now ?? Date.now;
    this.transport = options.url === undefined ? undefined : { url: options.url, pinned: this.pinned, timeoutMs: options.timeoutMs ?? 10_000 };
  }

  private async call(path: string, fields: Record<string, unknown>) {
    if (this.transport === undefined) throw new LicenseError('NETWORK_ERROR', 'no service URL is set: this client works offline only');
    return post(this.transport, path, { app_id: this.appId, ...fields });
  }

  /**
   * Authenticates (and on first use activates) the license: a verified answer of
   * the service, or, when the service cannot be reached, the stored license file
   * or offline token while it verifies, is unexpired and names this license and
   * device. A refusal of the license by the service (a verified 403: paused,
   * expired, deleted, another device, blacklisted, …) deletes its stored license
   * file and offline token, so neither outlives the refusal once the network is gone.
   */
  async check(options: WithDevice): Promise<CheckResult> {
    try {
      return await this.authenticate(options, this.state.tokenFile === undefined ? {} : { offline_token: true });
    } catch (error) {
      if (error instanceof LicenseError && error.code === 'NETWORK_ERROR') return this.offline(options, error);
      if (error instanceof LicenseError && error.status === 403) {
        await this.dropLicenseFile(options);
        await this.dropToken(options);
      }
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

  /**
   * Checks out a license file for this device (`/license-file`, with all of a
   * check's effects: first use, binding, on a floating license the seat
   * borrowed for the file's lifetime), verifies it as `loadLicenseFile` does,
   * with this request's nonce, and keeps it in `stateDir` when set.
   */
  async licenseFile(options: WithDevice & { hwid: string } & LicenseFileOptions): Promise<LicenseFileResult> {
    const { lifetimeSeconds, encrypt, ...device } = options;
    const { message, data, nonce } = await this.call('/license-file', {
      ...credentialsOf(device),
      hwid: device.hwid,
      ...(lifetimeSeconds === undefined ? {} : { lifetime_seconds: lifetimeSeconds }),
      ...(encrypt === undefined ? {} : { encrypt }),
    });
    const answer = data as LicenseFileData;
    if (typeof answer !== 'object' || answer === null || typeof answer.license_file !== 'string' || typeof answer.key !== 'string') {
      throw invalidSignature('success without the license file asked for');
    }
    let claims: LicenseFileClaims;
    try {
      const expected = { appId: this.appId, license: answer.key, hwid: device.hwid, nonce };
      claims = checkClaims(await openLicenseFile(answer.license_file, this.pinned, expected), expected);
    } catch (error) {
      // Like a token in an answer: a file that is not this request's makes the answer no answer.
      throw error instanceof LicenseError && error.code !== 'INVALID_SIGNATURE' ? invalidSignature(`the license file in the answer: ${error.message}`, error) : error;
    }
    if (this.state.keepsFiles) {
      await this.state.storeLicenseFile(answer.license_file);
      await this.state.sawServiceTime(claims.iat);
    }
    return { message, data: answer, claims, offline: false };
  }

  /**
   * Makes an activation request for a device that cannot reach the service:
   * `lfr1.` and the base64url of `{app_id, license, hwid, nonce, lifetime_seconds?, encrypt?}`,
   * with a fresh nonce kept in `stateDir` until the file made from it is
   * loaded. The owner's dashboard or the customer portal turns it into a file.
   */
  async activationRequest(options: FileDevice & LicenseFileOptions & { portalUrl?: string }): Promise<ActivationRequest> {
    const { license, hwid, lifetimeSeconds, encrypt, portalUrl } = options;
    if (typeof license !== 'string' || license === '') throw new TypeError('license must be the license key');
    if (typeof hwid !== 'string' || hwid === '' || hwid.length > 256) throw new TypeError('hwid must be 1 to 256 characters');
    if (lifetimeSeconds !== undefined && !(Number.isSafeInteger(lifetimeSeconds) && lifetimeSeconds >= 3600 && lifetimeSeconds <= 315_360_000)) {
      throw new TypeError('lifetimeSeconds must be a whole number of seconds from 3600 to 315360000');
    }
    if (encrypt !== undefined && typeof encrypt !== 'boolean') throw new TypeError('encrypt must be a boolean');
    const nonce = randomBytes(18).toString('base64url');
    await this.state.keepRequest({ license, hwid, nonce });
    const request = encodeCode('lfr1.', {
      app_id: this.appId,
      license,
      hwid,
      nonce,
      ...(lifetimeSeconds === undefined ? {} : { lifetime_seconds: lifetimeSeconds }),
      ...(encrypt === undefined ? {} : { encrypt }),
    });
    return { request, ...(portalUrl === undefined ? {} : { link: `${portalUrl.replace(/\/+$/, '')}/activate/#${request}` }) };
  }

  /**
   * Accepts a license file made from one of this program's activation requests
   * (the compact string, surrounding white space ignored) and keeps it in
   * `stateDir`, where `check` finds it: the file must decrypt (when encrypted)
   * with the request's license key and device, verify with the pinned key, and
   * name this application, that license and device, the request's nonce (a file
   * made from a request) and a time within `nbf` and `exp`. Resolves to its claims.
   */
  async loadLicenseFile(text: string): Promise<LicenseFileClaims> {
    const pending = await this.state.pendingRequests();
    if (pending.length === 0) throw mismatch('no activation request of this program is waiting for a license file');
    const now = this.now() / 1000;
    await this.state.judgeClock(now);
    let failure: LicenseError | undefined;
    for (const request of pending.reverse()) {
      try {
        const opened = await openLicenseFile(text, this.pinned, request);
        const expected = { appId: this.appId, license: request.license, hwid: request.hwid, nonce: opened.air_gapped === true ? request.nonce : undefined, now };
        const claims = checkClaims(opened, expected);
        await this.state.storeLicenseFile(text);
        await this.state.forgetRequests(request);
        return claims;
      } catch (error) {
        if (!(error instanceof LicenseError)) throw error;
        // Another request's mismatch says less about this file than the right request's refusal.
        if (failure === undefined || failure.code === 'LICENSE_FILE_MISMATCH') failure = error;
      }
    }
    throw failure!;
  }

  /**
   * Deletes the stored license file of this license and device and gives its
   * return code, `lfx1.` and the base64url of `{app_id, license, hwid, jti}`,
   * which the owner's dashboard or the customer portal takes to free the device
   * (under the license's reset rules). The file itself stays valid until its
   * `exp`: the code only tells the service this program no longer uses it.
   */
  async returnCode(options: FileDevice): Promise<string> {
    const { text, code } = await this.returnable(options);
    await this.state.dropLicenseFile(text);
    return code;
  }

  /** Returns the stored license file online (`/license-file/return`) and deletes it once the service took it back; a refusal keeps it. */
  async returnLicenseFile(options: FileDevice): Promise<OnlineResult<LicenseData>> {
    const { text, code } = await this.returnable(options);
    const { message, data } = await this.call('/license-file/return', { request: code });
    const license = data as LicenseData;
    if (typeof license !== 'object' || license === null || license.key !== options.license) throw invalidSignature('the answer is about another license');
    await this.state.dropLicenseFile(text);
    return { message, data: license, offline: false };
  }

  /**
   * Asks for this device's trial (`/trial`): `TRIAL_STARTED` or, for a device
   * that has one running, `TRIAL_RESUMED`, with the trial license's data and
   * its key in `data.license`, which the program keeps and checks with from
   * then on. A trial that ended, was bought or cannot start is a LicenseError
   * (`TRIAL_EXPIRED`, `TRIAL_CONVERTED`, `TRIAL_LIMIT_REACHED`, `TRIALS_DISABLED`).
   */
  async startTrial(options: { hwid: string }): Promise<OnlineResult<TrialData>> {
    const { message, data } = await this.call('/trial', { hwid: options.hwid });
    const trial = data as TrialData;
    if (typeof trial !== 'object' || trial === null || typeof trial.license !== 'string' || trial.license === '' || (trial.key !== undefined && trial.key !== trial.license)) {
      throw invalidSignature('the trial answer names no license of its own');
    }
    return { message, data: trial, offline: false };
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
      const claims = await verifyOfflineToken(license.offline_token, this.pinned, { appId: this.appId, license: license.key, hwid: options.hwid, nonce });
      if (this.state.tokenFile !== undefined) {
        await storeToken(this.state.tokenFile, { token: license.offline_token, ...(options.username === undefined ? {} : { username: options.username }) });
        await this.state.sawServiceTime(claims.iat);
      }
    }
    return { message, data: license, offline: false };
  }

  /** Deletes the stored token when it is this license's (by key, or by the username it was got with), or unreadable. */
  private async dropToken(options: WithDevice): Promise<void> {
    const stored = this.state.tokenFile === undefined ? undefined : await loadToken(this.state.tokenFile);
    if (stored === undefined) return;
    const claims = await peekClaims(stored.token);
    const ours =
      claims === undefined ||
      (options.license !== undefined
        ? claims.sub === options.license
        : options.username !== undefined && stored.username !== undefined && sameUser(stored.username, options.username));
    if (ours) await forgetToken(this.state.tokenFile!);
  }

  /**
   * The check answered from what is stored, the license file first (it carries
   * the license data), then the offline token. Nothing stored for this license
   * and device leaves the network's failure; when something is but cannot be
   * used (expired, altered, the clock set back), the first such reason is the error.
   */
  private async offline(options: WithDevice, unreachable: LicenseError): Promise<OfflineResult | LicenseFileOfflineResult> {
    let failure: unknown;
    for (const fromStored of [() => this.fromLicenseFile(options), () => this.fromToken(options)]) {
      try {
        const result = await fromStored();
        if (result !== undefined) return result;
      } catch (error) {
        if (!(error instanceof LicenseError)) throw error;
        failure ??= error;
      }
    }
    throw failure ?? unreachable;
  }

  private async fromToken(options: WithDevice): Promise<OfflineResult | undefined> {
    const stored = this.state.tokenFile === undefined ? undefined : await loadToken(this.state.tokenFile);
    if (stored === undefined) return undefined;
    if (options.username !== undefined && (stored.username === undefined || !sameUser(stored.username, options.username))) return undefined;
    // A token of another license or device is no answer to this check: the failure stays the network's.
    const claims = await peekClaims(stored.token);
    if (claims === undefined || !namesLicenseAndDevice({ sub: claims.sub ?? '', hwid: claims.hwid ?? null, hwids: claims.hwids ?? [] }, { license: options.license, hwid: options.hwid })) {
      return undefined;
    }
    await this.state.judgeClock(this.now() / 1000);
    // A token not valid yet by this clock, past the leeway, is no answer either (as in the other libraries).
    if (typeof claims.nbf === 'number' && claims.nbf > this.now() / 1000 + storedTokenLeewaySeconds) return undefined;
    const verified = await verifyOfflineToken(stored.token, this.pinned, {
      appId: this.appId,
      license: options.license,
      hwid: options.hwid,
      now: this.now(),
      notBeforeLeewaySeconds: storedTokenLeewaySeconds,
    });
    return { message: 'OFFLINE_TOKEN_VALID', data: verified, offline: true };
  }

  private async fromLicenseFile(options: WithDevice): Promise<LicenseFileOfflineResult | undefined> {
    const stored = await this.storedFile(options);
    if (stored === undefined) return undefined;
    const now = this.now() / 1000;
    await this.state.judgeClock(now);
    const claims = checkClaims(stored.claims, { appId: this.appId, license: stored.claims.sub, hwid: options.hwid!, now });
    return { message: 'LICENSE_FILE_VALID', data: claims, offline: true };
  }

  /**
   * The stored license file when it is about these credentials and this device,
   * its signature verified; undefined when there is none, or it is another
   * license's or device's. An encrypted file is read only by a check that names
   * the license key and the device, which its key is made of.
   */
  private async storedFile(options: WithDevice): Promise<{ text: string; claims: LicenseFileClaims } | undefined> {
    const text = await this.state.licenseFile();
    if (text === undefined || options.hwid === undefined) return undefined;
    const license = options.license ?? (await peekLicense(text));
    if (license === undefined) return undefined;
    let claims: LicenseFileClaims;
    try {
      claims = await openLicenseFile(text, this.pinned, { license, hwid: options.hwid });
    } catch (error) {
      if (error instanceof LicenseError && error.code === 'LICENSE_FILE_MISMATCH') return undefined;
      throw error;
    }
    const asked = options.username === undefined ? claims.sub === options.license : typeof claims.data?.username === 'string' && sameUser(claims.data.username, options.username);
    return asked && namesLicenseAndDevice(claims, { hwid: options.hwid }) ? { text, claims } : undefined;
  }

  private async dropLicenseFile(options: WithDevice): Promise<void> {
    const stored = await this.storedFile(options).catch(() => undefined);
    if (stored !== undefined) await this.state.dropLicenseFile(stored.text);
  }

  /** The stored file of this license and device, verified, and its return code. */
  private async returnable(device: FileDevice): Promise<{ text: string; code: string }> {
    if (!this.state.keepsFiles) throw new TypeError('Returning a license file needs the stateDir option');
    const text = await this.state.licenseFile();
    if (text === undefined) throw mismatch('no license file is stored');
    const expected = { appId: this.appId, ...device };
    const { jti } = checkClaims(await openLicenseFile(text, this.pinned, device), expected);
    return { text, code: encodeCode('lfx1.', { app_id: this.appId, license: device.license, hwid: device.hwid, jti }) };
  }
}
