import { randomUUID } from 'node:crypto';
import type { Deps } from '#core/deps';
import { clientFailure } from '#core/http/errors';
import { counterView, effectiveUsageLimits, usedNow, type CounterView } from '#shared/entitlements';
import { ownEntry } from '#shared/own-keys';
import type { BlacklistProbe } from '#data/model/blacklist';
import { sleep } from '#data/backoff';
import { isFloating, isLive, leaseOfDevice } from '#data/model/lease';
import type { License } from '#data/model/license';
import { checkLicenseState, hwidToBind, licenseOfApp } from './auth-checks';
import { checkedLicense } from './auth';
import type { AuthInput, UsageRequest } from './schemas';
import * as auth from '#data/auth.repo';
import * as usage from '#data/usage.repo';

export const usageRecordedMessage = 'USAGE_RECORDED';

/** Counts that lost to a concurrent change read again and decide again; this many in a row means something else is wrong. */
const maxCountAttempts = 10;

/**
 * `POST /usage`: /auth's checks in their order (docs/client-api.md, POST
 * /auth), without what a first use would do, then the counter. Without a
 * `usage_id` the count is one conditional update after /auth's reads; with
 * one, a transaction that also writes the id's marker.
 */
export async function recordUsage(
  deps: Deps,
  input: Pick<AuthInput, 'appId' | 'credential' | 'hwid'> & UsageRequest,
  probes: BlacklistProbe[],
): Promise<CounterView> {
  const checked = await checkedLicense(deps, input, probes);
  const { subscription, now } = checked;
  let license = checked.license;
  if (license.first_used_at === null) throw clientFailure('LICENSE_NOT_ACTIVATED');
  if (!activeDevice(license, input.hwid, now)) throw clientFailure('LICENSE_NOT_ACTIVATED');

  for (let attempt = 1; attempt <= maxCountAttempts; attempt++) {
    const limit = ownEntry(effectiveUsageLimits(subscription, license), input.counter);
    if (!limit) throw clientFailure('USAGE_COUNTER_UNKNOWN');
    const used = usedNow(limit, ownEntry(license.counters, input.counter), now);
    const request = { license, counter: input.counter, limit, amount: input.amount, now };
    if (used + input.amount > limit.limit + limit.overage) {
      // A retry of a count that filled the counter is answered as that count was.
      const earlier = input.usageId === undefined ? undefined : await usage.earlierAnswer(deps.table, license, input.usageId, now);
      if (earlier) return earlier;
      await usage.markLimitReached(deps.table, request);
      throw clientFailure('USAGE_LIMIT_REACHED', { ...counterView(input.counter, limit, used, now) });
    }
    if (input.usageId === undefined) {
      const outcome = await usage.count(deps.table, { ...request, token: deps.table.requestId ?? randomUUID() });
      if (outcome.kind === 'counted') return counterView(input.counter, limit, outcome.used, now);
      license = stillValid(outcome.license, input.appId, now, subscription.grace_seconds);
      continue;
    }
    const answer = counterView(input.counter, limit, used + input.amount, now);
    const outcome = await usage.countOnce(deps.table, { ...request, usageId: input.usageId, answer });
    if (outcome.kind === 'counted') return answer;
    if (outcome.kind === 'replayed') return outcome.answer;
    // Concurrent counts with their own ids each hold the counter to the value they read: one gets through per round.
    await sleep(Math.random() * 10 * attempt);
    license = stillValid(await auth.currentLicense(deps.table, license), input.appId, now, subscription.grace_seconds);
  }
  throw new Error(`usage counter changed under each of ${maxCountAttempts} attempts`);
}

/**
 * Whether the device may count: on a locked license one /auth has bound, or on
 * a floating one a device holding a live lease. A device /auth would bind (or
 * give a seat) now has not been activated yet. A missing or foreign HWID gets
 * /auth's 403.
 */
function activeDevice(license: License, hwid: string | undefined, now: Date): boolean {
  if (!isFloating(license)) return hwidToBind(license, hwid, now) === undefined;
  if (hwid === undefined) throw clientFailure('HWID_NOT_PROVIDED');
  return isLive(leaseOfDevice(license, hwid), now);
}

/** The license as read again after a lost race, checked as check 5 of docs/client-api.md#check-order checks it. */
function stillValid(license: License | undefined, appId: string, now: Date, graceSeconds: number | undefined): License {
  const current = licenseOfApp(license, appId);
  checkLicenseState(current, now, graceSeconds);
  return current;
}
