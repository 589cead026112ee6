import { addSeconds, iso } from '#shared/clock';
import type { Deps } from '#core/deps';
import { badClientRequest, clientFailure, clientMessages } from '#core/http/errors';
import { authView, hwidResetCooldown } from '#core/domain/license-view';
import type { BlacklistProbe } from '#data/model/blacklist';
import type { License } from '#data/model/license';
import { isFloating, liveLeases, nextSeatAt } from '#data/model/lease';
import { fileOfJti, filesWithout } from '#data/model/license-file';
import { afterLostRace, checkedLicense } from './auth';
import type { ResetHwidInput } from './schemas';
import * as hwids from '#data/hwid.repo';

export const hwidResetMessage = 'HWID_RESET';
export const licenseFileReturnedMessage = 'LICENSE_FILE_RETURNED';

/**
 * What /reset-hwid releases: the one device named, or every device. On a
 * floating license only devices with a live lease count as bound, and a
 * borrowed lease is kept to its end, as /release keeps it (else cycling borrow
 * and reset would hand out more offline seats than the license has).
 */
function toRelease(license: License, hwid: string | undefined, now: Date, releaseBorrowed: boolean): string[] {
  const floating = isFloating(license);
  const live = floating ? liveLeases(license, now) : [];
  const bound = floating ? live.map((lease) => lease.hwid) : license.hwids;
  const borrowed = live.filter((lease) => lease.borrowed);
  if (hwid === undefined) {
    if (bound.length === 0) throw clientFailure('HWID_NOT_BOUND');
    if (borrowed.length === bound.length) throw clientFailure('LEASE_BORROWED', { lease_expires_at: nextSeatAt(borrowed) });
    return license.hwids.filter((listed) => !borrowed.some((lease) => lease.hwid === listed));
  }
  if (!bound.includes(hwid)) throw clientFailure('HWID_NOT_BOUND');
  const lease = borrowed.find((held) => held.hwid === hwid);
  if (lease && !releaseBorrowed) throw clientFailure('LEASE_BORROWED', { lease_expires_at: lease.expires_at });
  return [hwid];
}

/**
 * What a returned license file releases (docs/client-api.md, "POST /license-file/return"): its
 * device, which must be bound (on a floating license, hold a live lease, borrowed or not: a
 * file borrows its seat, and returning the file is how that borrow ends early). On a license
 * without `hwid_lock` nothing is bound: the return drops the file only.
 */
function toReturn(license: License, hwid: string, now: Date): string[] {
  if (!license.hwid_lock) return license.hwids.includes(hwid) ? [hwid] : [];
  const bound = isFloating(license) ? liveLeases(license, now).map((lease) => lease.hwid) : license.hwids;
  if (!bound.includes(hwid)) throw clientFailure('HWID_NOT_BOUND');
  return [hwid];
}

/** The returned file, when it is a live file of the device the code names: else 400 `Invalid return code`. */
function checkReturnedFile(license: License, jti: string, hwid: string | undefined, now: Date): void {
  const file = fileOfJti(license, jti);
  if (file === undefined || file.hwid !== hwid || Date.parse(file.expires_at) <= now.getTime()) throw badClientRequest(clientMessages.invalidReturnCode);
}

/** Step after NOT_ALLOWED and NOT_BOUND: the interval since the last reset must have passed. */
function checkCooldown(license: License, now: Date): void {
  const cooldown = hwidResetCooldown(license, now);
  if (cooldown > 0 && license.last_hwid_reset_at !== null) {
    throw clientFailure('HWID_RESET_COOLDOWN', {
      last_hwid_reset_at: license.last_hwid_reset_at,
      hwid_reset_cooldown: cooldown,
      next_reset_at: addSeconds(license.last_hwid_reset_at, license.hwid_reset_interval),
    });
  }
}

export interface ResetOptions {
  /** `/license-file/return`: the returned file's id. */
  returned?: { jti: string };
  /** Release the named device's lease even when it is borrowed. */
  releaseBorrowed?: boolean;
}

/**
 * `POST /reset-hwid` (docs/client-api.md, "POST /reset-hwid"): /auth's steps 2 to 8, then the
 * reset's own checks in order, then one transaction that releases the devices
 * (their index items too) and sets `last_hwid_reset_at`. The transaction is
 * conditional on the license as checked (bound HWIDs, last reset, the reset
 * flag and interval, status), so of concurrent resets in one cooldown exactly
 * one gets through; the others read the license again and meet the cooldown.
 * With `returned` it is `/license-file/return`: the returned file's device is released, and the
 * same transaction drops the file, on condition that the license still lists it.
 * With `releaseBorrowed` (the customer portal's release, docs/portal.md) a borrowed seat of the
 * named device is released too: its customer says the device is gone, and the reset rules
 * (flag and interval) still bound how often that can happen.
 */
export async function resetHwid(deps: Deps, input: ResetHwidInput, probes: BlacklistProbe[], options: ResetOptions = {}) {
  const { returned, releaseBorrowed = false } = options;
  const checked = await checkedLicense(deps, input, probes);
  const { now, subscription } = checked;
  let license = checked.license;
  for (let attempt = 1; ; attempt++) {
    if (returned) checkReturnedFile(license, returned.jti, input.hwid, now);
    if (!license.hwid_reset_allowed) throw clientFailure('HWID_RESET_NOT_ALLOWED');
    const released = returned ? toReturn(license, input.hwid!, now) : toRelease(license, input.hwid, now, releaseBorrowed);
    checkCooldown(license, now);
    const resetAt = iso(now);
    const outcome = await hwids.replaceHwids(deps.table, {
      license,
      hwids: license.hwids.filter((hwid) => !released.includes(hwid)),
      resetAt,
      now: resetAt,
      claim: false,
      ...(returned ? { returnedFile: returned.jti } : {}),
      expect: { status: 'active', hwid_reset_allowed: true, hwid_reset_interval: license.hwid_reset_interval, last_hwid_reset_at: license.last_hwid_reset_at },
    });
    if (outcome === 'changed') {
      const hwids = license.hwids.filter((hwid) => !released.includes(hwid));
      const after: License = { ...license, hwids, hwid: hwids[0] ?? null, last_hwid_reset_at: resetAt, ...(returned ? { files: filesWithout(license, returned.jti) } : {}) };
      return { message: returned ? licenseFileReturnedMessage : hwidResetMessage, data: authView(after, subscription, now, input.hwid) };
    }
    license = await afterLostRace(deps, license, input.appId, now, attempt, subscription.grace_seconds);
  }
}
