import { addSeconds, iso } from '#shared/clock';
import type { Deps } from '#core/deps';
import { clientFailure } from '#core/http/errors';
import { authView, hwidResetCooldown } from '#core/domain/license-view';
import type { BlacklistProbe } from '#data/model/blacklist';
import type { License } from '#data/model/license';
import { isFloating, liveLeases, nextSeatAt } from '#data/model/lease';
import { afterLostRace, checkedLicense } from './auth';
import type { ResetHwidInput } from './schemas';
import * as hwids from '#data/hwid.repo';

export const hwidResetMessage = 'HWID_RESET';

/**
 * What /reset-hwid releases: the one device named, or every device. On a
 * floating license only devices with a live lease count as bound, and a
 * borrowed lease is kept to its end, as /release keeps it (else cycling borrow
 * and reset would hand out more offline seats than the license has).
 */
function toRelease(license: License, hwid: string | undefined, now: Date): string[] {
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
  if (lease) throw clientFailure('LEASE_BORROWED', { lease_expires_at: lease.expires_at });
  return [hwid];
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

/**
 * `POST /reset-hwid` (docs/client-api.md, "POST /reset-hwid"): /auth's steps 2 to 8, then the
 * reset's own checks in order, then one transaction that releases the devices
 * (their index items too) and sets `last_hwid_reset_at`. The transaction is
 * conditional on the license as checked (bound HWIDs, last reset, the reset
 * flag and interval, status), so of concurrent resets in one cooldown exactly
 * one gets through; the others read the license again and meet the cooldown.
 */
export async function resetHwid(deps: Deps, input: ResetHwidInput, probes: BlacklistProbe[]) {
  const checked = await checkedLicense(deps, input, probes);
  const { now, subscription } = checked;
  let license = checked.license;
  for (let attempt = 1; ; attempt++) {
    if (!license.hwid_reset_allowed) throw clientFailure('HWID_RESET_NOT_ALLOWED');
    const released = toRelease(license, input.hwid, now);
    checkCooldown(license, now);
    const resetAt = iso(now);
    const outcome = await hwids.replaceHwids(deps.table, {
      license,
      hwids: license.hwids.filter((hwid) => !released.includes(hwid)),
      resetAt,
      now: resetAt,
      claim: false,
      expect: { status: 'active', hwid_reset_allowed: true, hwid_reset_interval: license.hwid_reset_interval, last_hwid_reset_at: license.last_hwid_reset_at },
    });
    if (outcome === 'changed') {
      const hwids = license.hwids.filter((hwid) => !released.includes(hwid));
      const after: License = { ...license, hwids, hwid: hwids[0] ?? null, last_hwid_reset_at: resetAt };
      return { message: hwidResetMessage, data: authView(after, subscription, now, input.hwid) };
    }
    license = await afterLostRace(deps, license, input.appId, now, attempt, subscription.grace_seconds);
  }
}
