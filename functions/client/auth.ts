import { randomUUID } from 'node:crypto';
import { addSeconds, iso } from '#shared/clock';
import type { Deps } from '#core/deps';
import { clientFailure } from '#core/http/errors';
import { authView } from '#core/domain/license-view';
import { licenseFingerprint } from '#core/logger';
import { hashPassword, maxPasswordBytes, verifyPassword } from '#core/domain/passwords';
import type { App } from '#data/model/app';
import type { BlacklistProbe } from '#data/model/blacklist';
import type { License } from '#data/model/license';
import type { Subscription } from '#data/model/subscription';
import { sleep } from '#data/backoff';
import type { UsernameIndex } from '#data/model/username';
import { isFloating, type Lease } from '#data/model/lease';
import type { LiveFile } from '#data/model/license-file';
import { checkFileLifetime, fileFor, fileLifetime, type FileAsk } from './file-rules';
import { offlineEnd } from './offline-token';
import { seatFor } from './seats';
import { checkBorrowAllowed } from './schemas';
import {
  checkApplication,
  checkBlacklists,
  checkLicenseState,
  checkSubscription,
  checkTeam,
  hwidToBind,
  graceSecondsOf,
  licenseOfApp,
  pastExpiry,
  successCode,
  type SuccessCode,
} from './auth-checks';
import type { AuthInput } from './schemas';
import * as auth from '#data/auth.repo';

export interface AuthSuccess {
  message: SuccessCode;
  data: ReturnType<typeof authView>;
  /** What the checks passed on, as written: for an offline token. */
  app: App;
  license: License;
  subscription: Subscription;
  /** On a floating license: this device's lease after this /auth. */
  lease?: Lease;
  /** The license file this check recorded (/license-file). */
  file?: LiveFile;
}

/** Lost races re-read the license and decide again; this many in a row means something else is wrong. */
const maxActivationAttempts = 5;

/**
 * `POST /auth`: the steps of docs/client-api.md (POST /auth) in order, stopping at the first
 * failure. The work behind them follows the hot path of docs/performance.md: two reads
 * (`checkedLicense`), then round trip 3 is the one conditional write. Logging
 * in by username costs one more read, as the license is known only after the
 * password check.
 */
export async function authenticate(deps: Deps, input: AuthInput, probes: BlacklistProbe[], borrowSeconds?: number, file?: FileAsk): Promise<AuthSuccess> {
  const checked = await checkedLicense(deps, input, probes, (app) => {
    checkBorrowAllowed(borrowSeconds, app.max_borrow_seconds);
    if (file) checkFileLifetime(file, app);
  });
  return activateChecked(deps, checked, input, borrowSeconds, file);
}

/**
 * Check 9 of docs/client-api.md#check-order and the one write, for a license whose
 * checks 2 to 8 passed: what /auth, /license-file and a resumed trial (POST /trial) do.
 */
export async function activateChecked(
  deps: Deps,
  checked: { app: App; license: License; subscription: Subscription; now: Date },
  input: Pick<AuthInput, 'appId' | 'hwid'>,
  borrowSeconds?: number,
  file?: FileAsk,
): Promise<AuthSuccess> {
  const { now, subscription } = checked;
  let license = checked.license;
  const jti = file && randomUUID();

  for (let attempt = 1; ; attempt++) {
    const floating = isFloating(license);
    if (borrowSeconds !== undefined && !floating) throw clientFailure('LICENSE_NOT_FLOATING');
    const firstUse = license.first_used_at === null;
    const expiresAt = license.expires_at ?? addSeconds(iso(now), license.initial_duration);
    const fileSeconds = file && fileLifetime(file, checked.app, floating);
    // A file on a floating license borrows the seat for its lifetime, as `borrow_seconds` does.
    const seat = floating ? seatFor(license, input.hwid, now, expiresAt, borrowSeconds ?? fileSeconds) : undefined;
    const bindHwid = seat ? (seat.held ? undefined : seat.hwid) : hwidToBind(license, input.hwid, now);
    const fileWrite = fileSeconds === undefined ? undefined : fileFor(license, { jti: jti!, hwid: input.hwid!, now, seconds: fileSeconds, airGapped: file!.airGapped, end: offlineEnd({ expires_at: expiresAt }, subscription, now.getTime()) });
    const outcome = await auth.activate(deps.table, {
      license,
      now: iso(now),
      firstUse,
      bindHwid,
      sentHwid: input.hwid,
      claimDevice: bindHwid !== undefined && subscription.single_key_per_hwid,
      seat,
      ...(fileWrite ? { file: fileWrite } : {}),
    });
    if (outcome.kind === 'activated') {
      return {
        message: successCode(firstUse, license.hwid_lock),
        data: authView(outcome.license, subscription, now, input.hwid),
        app: checked.app,
        license: outcome.license,
        subscription,
        ...(seat ? { lease: seat.lease } : {}),
        ...(fileWrite ? { file: { jti: fileWrite.jti, ...fileWrite.file } } : {}),
      };
    }
    if (outcome.kind === 'device_taken') throw clientFailure('DEVICE_ALREADY_REGISTERED_WITH_OTHER_LICENSE');
    license = await afterLostRace(deps, license, input.appId, now, attempt, subscription.grace_seconds);
  }
}

/**
 * Steps 2 to 8 of docs/client-api.md (POST /auth) in order, stopping at the first failure: what
 * /auth and /reset-hwid both check before they touch the license. Round trip
 * 1 fetches the app, the blacklist entries and the license (or username
 * index) together; round trip 2 the team and subscription (cached when warm).
 */
export async function checkedLicense(
  deps: Deps,
  input: Pick<AuthInput, 'appId' | 'credential'>,
  probes: BlacklistProbe[],
  /** A 400 that needs the application's settings: checked as soon as it is read, before the 403 steps. */
  checkApp?: (app: App) => void,
): Promise<{ app: App; license: License; subscription: Subscription; now: Date }> {
  const now = deps.clock.now();
  const entry = await auth.read(deps, {
    app: input.appId,
    blacklist: { appId: input.appId, probes },
    ...('license' in input.credential
      ? { license: { key: input.credential.license, appId: input.appId } }
      : { login: { appId: input.appId, username: input.credential.username } }),
  });
  if (!entry.app) throw clientFailure('INVALID_APP_ID');
  checkApp?.(entry.app);
  checkBlacklists(entry.blacklisted);
  const license =
    'license' in input.credential
      ? licenseOfApp(entry.license, input.appId)
      : await logIn(deps, entry.app, input.credential.password, entry.login);
  // An expired license may still be in its subscription's grace, known only
  // once the subscription is read: its check 5 (docs/client-api.md#check-order)
  // waits for round trip 2 and still answers before checks 6 to 8.
  const maybeInGrace = license.status === 'active' && pastExpiry(license, now);
  if (!maybeInGrace) checkLicenseState(license, now);

  const context = await auth.read(deps, { app: input.appId, team: entry.app.team_id, subscription: license.subscription_id });
  if (maybeInGrace) checkLicenseState(license, now, graceSecondsOf(context.subscription, license));
  checkApplication(context.app);
  checkTeam(context.team, now);
  checkSubscription(context.subscription, license);
  return { app: context.app, license, subscription: context.subscription, now };
}

/**
 * A write lost to another request: pause a random moment (concurrent
 * transactions on one item can all be refused; the pause lets one through
 * next time), read the license again and check its state, or give up after
 * `maxActivationAttempts`.
 */
export async function afterLostRace(deps: Deps, license: License, appId: string, now: Date, attempt: number, graceSeconds?: number): Promise<License> {
  if (attempt >= maxActivationAttempts) {
    // This message reaches the logs, which must not hold the key: its fingerprint correlates.
    throw new Error(`license ${licenseFingerprint(license.key)} changed under each of ${attempt} attempts`);
  }
  await sleep(Math.random() * 10 * attempt);
  const current = licenseOfApp(await auth.currentLicense(deps.table, license), appId);
  checkLicenseState(current, now, graceSeconds);
  return current;
}

const dummyHashes = new Map<number, Promise<string>>();

/** A hash to compare against when the username is unknown, so the answer takes as long as for a known one. */
function dummyHash(cost: number): Promise<string> {
  let hash = dummyHashes.get(cost);
  if (!hash) {
    hash = hashPassword('not-a-password-of-anyone', cost);
    dummyHashes.set(cost, hash);
  }
  return hash;
}

/** Check 4 of docs/client-api.md#check-order by username: unknown usernames and wrong passwords get one answer, after one bcrypt comparison. */
async function logIn(deps: Deps, app: App, password: string, login: UsernameIndex | undefined): Promise<License> {
  const hash = login?.password_hash ?? (await dummyHash(deps.config.bcryptCost));
  const matches = await verifyPassword(password, hash);
  // bcrypt compares only the first 72 bytes; /register never stores a longer password.
  if (!login || !matches || Buffer.byteLength(password, 'utf8') > maxPasswordBytes) throw clientFailure('INVALID_USERNAME_OR_PASSWORD');
  const { license } = await auth.read(deps, { license: { key: login.license_key, appId: app.app_id, teamId: app.team_id } });
  return licenseOfApp(license, app.app_id);
}
