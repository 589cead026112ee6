import { addSeconds } from '#shared/clock';
import type { Deps } from '#core/deps';
import { ClientError, clientFailure } from '#core/http/errors';
import { authView } from '#core/domain/license-view';
import { addressHash } from '#core/http/network';
import { namedLicenseKey } from '#core/ids';
import type { App } from '#data/model/app';
import type { BlacklistProbe } from '#data/model/blacklist';
import type { License } from '#data/model/license';
import type { Subscription } from '#data/model/subscription';
import { trialTag, type TrialClaim, type TrialSettings, type TrialStart } from '#data/model/trial';
import { sleep } from '#data/backoff';
import * as auth from '#data/auth.repo';
import * as trials from '#data/trial.repo';
import { hwidResetDefaults, newLicense } from '../license/new-license';
import { activateChecked } from './auth';
import { checkApplication, checkBlacklists, checkLicenseState, checkSubscription, checkTeam, pastExpiry } from './auth-checks';
import type { TrialInput } from './schemas';

/**
 * Rounds of deciding a start again. A round is lost only when another start
 * from this address or for this device wrote first (each of which wins once),
 * or when transactions on the same items kept conflicting through
 * transactWrite's own retries, so a request needs about one round per start
 * racing it from its address. Past this many, more starts race from one address
 * than it should ever send at once: the request answers 429 `RATE_LIMITED`
 * with nothing written, as a throttle does, and the program asks again later.
 */
const maxStartRounds = 100;
/** The longest pause before a round after a conflict. */
const maxConflictPauseMs = 200;
/** How far back `per_ip_per_day` counts an address's starts. */
const addressWindowSeconds = 86400;

export type TrialMessage = 'TRIAL_STARTED' | 'TRIAL_RESUMED';

/** `data` of a trial: what /auth answers for the license, and its key. */
export type TrialData = ReturnType<typeof authView> & { license: string };

/**
 * `POST /trial` (docs/client-api.md#post-trial): /auth's checks 2 and 3, the
 * application active and its team's plan, trials configured; then this
 * device's trial is resumed, refused (ended, bought) or started.
 *
 * A warm container holds the application, and with it the key its trial
 * secret names this device's license with (`trialKeyOf`): round trip 1 reads
 * that license with the blacklist entries, as /auth reads a license by its key,
 * and a resume then costs what /auth costs. Otherwise round trip 1 reads the
 * application, the blacklist entries and the device's claim, and round trip 2
 * the license the claim names. Round trip 2 also reads the team and the trial's
 * subscription (both cached when warm) and, for a device whose license was not
 * found, beside it the claim and the address's start times strongly
 * consistent. Then one write: /auth's for a resumed trial, one transaction for
 * a new one.
 */
export async function startTrial(deps: Deps, input: TrialInput, probes: BlacklistProbe[], sourceIp: string): Promise<{ message: TrialMessage; data: TrialData }> {
  const now = deps.clock.now();
  const { appId, hwid } = input;
  const named = trialKeyOf(auth.cachedApp(deps, appId), hwid);
  const entry = await auth.read(deps, {
    app: appId,
    blacklist: { appId, probes },
    ...(named === undefined ? { trialClaim: { appId, hwid } } : { trialLicense: { key: named, appId } }),
  });
  if (!entry.app) throw clientFailure('INVALID_APP_ID');
  checkBlacklists(entry.blacklisted);
  checkApplication(entry.app);
  const app = entry.app;
  const { trialClaim: claim, trialLicense: found } = entry;
  const trial = app.trial;
  const address = addressHash(appId, sourceIp);
  const [context, state] = await Promise.all([
    auth.read(deps, {
      team: app.team_id,
      subscription: trial?.subscription_id,
      ...(claim && trial ? { license: { key: claim.license_key, appId, teamId: app.team_id } } : {}),
    }),
    // What a start decides on, read beside round trip 2 when this request may start one.
    trial && !claim && !found ? trials.startState(deps.table, appId, hwid, address) : undefined,
  ]);
  checkTeam(context.team, now);
  if (!trial) throw clientFailure('TRIALS_DISABLED');
  const device = { app, subscription: context.subscription, hwid, now };
  if (found) return resume(deps, { ...device, license: found });
  if (claim) return resumeClaimed(deps, claim, context.license, device);

  const nowSeconds = Math.floor(now.getTime() / 1000);
  let start: Omit<TrialStart, 'address'> | undefined;
  let current = state;
  for (let round = 1; ; round++) {
    current ??= await trials.startState(deps.table, appId, hwid, address);
    // Claims are never deleted: a device whose claim another request made meanwhile resumes that trial, uncounted.
    if (current.claim) {
      const won = current.claim;
      return resumeClaimed(deps, won, await auth.currentLicense(deps.table, { key: won.license_key, team_id: app.team_id }), device);
    }
    checkTrialSubscription(context.subscription, appId);
    start ??= newStart(deps, app, trial, context.subscription, hwid);
    const recent = (current.starts ?? []).filter((startedAt) => startedAt >= nowSeconds - addressWindowSeconds);
    if (recent.length >= trial.per_ip_per_day) throw clientFailure('TRIAL_LIMIT_REACHED');
    const outcome = await trials.start(deps.table, {
      ...start,
      address: { hash: address, read: current.starts, starts: [...recent, nowSeconds], expiresAt: nowSeconds + addressWindowSeconds },
    });
    if (outcome === 'started') return { message: 'TRIAL_STARTED', data: { ...authView(start.license, context.subscription, now, hwid), license: start.license.key } };
    if (outcome === 'device_taken') throw clientFailure('DEVICE_ALREADY_REGISTERED_WITH_OTHER_LICENSE');
    if (round >= maxStartRounds) throw new ClientError(429, 'RATE_LIMITED');
    // Many devices of one address starting at once all write its item: after a conflict, pause a random moment.
    if (outcome === 'conflict') await sleep(Math.random() * Math.min(maxConflictPauseMs, 50 * round));
    current = undefined;
  }
}

/**
 * The key of this device's trial license: named by the application's trial
 * secret, so it is known before anything is read and guessed by no one who
 * has only the HWID. Undefined for an application without one (its trials
 * were configured before trials had secrets): its licenses have random keys,
 * found through the device's claim.
 */
function trialKeyOf(app: App | null | undefined, hwid: string): string | undefined {
  return app?.trial_secret === undefined ? undefined : namedLicenseKey(app.trial_secret, `trial-license\n${hwid}`);
}

/** What a start writes but the address's start times: the license, the device's claim. */
function newStart(deps: Pick<Deps, 'clock'>, app: App, trial: TrialSettings, subscription: Subscription, hwid: string): Omit<TrialStart, 'address'> {
  const license = trialLicense(deps, app, trial, subscription, hwid);
  return {
    license,
    claim: { app_id: app.app_id, hwid, license_key: license.key, created_at: license.created_at, expires_at: license.expires_at! },
    claimDevice: subscription.single_key_per_hwid,
  };
}

/** A trial's subscription must be one of this application's, and active, as check 8 of /auth says. */
function checkTrialSubscription(subscription: Subscription | undefined, appId: string): asserts subscription is Subscription {
  if (!subscription || subscription.app_id !== appId) throw clientFailure('SUBSCRIPTION_ERROR');
  if (subscription.status !== 'active') throw clientFailure('SUBSCRIPTION_NOT_ACTIVE');
}

/** A trial license: in use from now, locked to this device, tagged `trial`. */
function trialLicense(deps: Pick<Deps, 'clock'>, app: App, trial: TrialSettings, subscription: Subscription, hwid: string): License {
  const made = newLicense(deps, {
    teamId: app.team_id,
    subscription,
    hwid_reset_allowed: app.default_hwid_reset_allowed ?? hwidResetDefaults.hwid_reset_allowed,
    hwid_reset_interval: app.default_hwid_reset_interval ?? hwidResetDefaults.hwid_reset_interval,
    duration_unit: 'seconds',
    duration_value: trial.duration_seconds,
    hwid_lock: true,
    tags: [trialTag],
    max_devices: trial.max_devices,
    lease_seconds: null,
    ...(trial.features === undefined ? {} : { features: trial.features }),
  });
  const now = made.created_at;
  return { ...made, key: trialKeyOf(app, hwid) ?? made.key, first_used_at: now, last_login: now, expires_at: addSeconds(now, made.initial_duration), hwid, hwids: [hwid] };
}

interface Resumed {
  app: App;
  license: License;
  /** The trial's subscription as round trip 2 read it: the license's own is read when it is another. */
  subscription: Subscription | undefined;
  hwid: string;
  now: Date;
}

/** A device whose claim was read: `TRIAL_EXPIRED` when the license it names is gone (the owner deleted it), else resumed. */
function resumeClaimed(deps: Deps, claim: TrialClaim, license: License | undefined, device: Omit<Resumed, 'license'>): Promise<{ message: TrialMessage; data: TrialData }> {
  if (!license || license.app_id !== device.app.app_id) throw clientFailure('TRIAL_EXPIRED', { expires_at: claim.expires_at });
  return resume(deps, { ...device, license });
}

/**
 * A device that has its trial: `TRIAL_EXPIRED` once it ended, `TRIAL_CONVERTED`
 * once bought; otherwise what /auth does with the license and this device (its
 * checks 5, 8 and 9, and its write).
 */
async function resume(deps: Deps, { app, license, subscription, hwid, now }: Resumed): Promise<{ message: TrialMessage; data: TrialData }> {
  if (!license.tags.includes(trialTag)) throw clientFailure('TRIAL_CONVERTED');
  if (pastExpiry(license, now)) throw clientFailure('TRIAL_EXPIRED', { expires_at: license.expires_at });
  checkLicenseState(license, now);
  const ofLicense =
    subscription?.subscription_id === license.subscription_id ? subscription : (await auth.read(deps, { subscription: license.subscription_id })).subscription;
  checkSubscription(ofLicense, license);
  const success = await activateChecked(deps, { app, license, subscription: ofLicense, now }, { appId: app.app_id, hwid });
  return { message: 'TRIAL_RESUMED', data: { ...success.data, license: license.key } };
}
