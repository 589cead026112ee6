import type { ViewerHeader } from '#core/config';
import type { RequestInfo } from '#core/http/handler';
import { clientFailure, type ClientFailureCode } from '#core/http/errors';
import { hwidResetAvailable, hwidResetCooldown } from '#core/domain/license-view';
import { normalizeBlacklistValue } from '#core/http/network';
import type { App } from '#data/model/app';
import type { BlacklistProbe, BlacklistType } from '#data/model/blacklist';
import type { License } from '#data/model/license';
import type { Subscription } from '#data/model/subscription';
import type { Team } from '#data/model/team';

/**
 * The checks of docs/client-api.md#check-order, one function per check, each throwing the check's 403.
 * They are pure: the pipeline in auth.ts fetches the items and calls them in
 * that page's order.
 */

/**
 * The inputs of check 3 (docs/client-api.md#check-order) in that page's order. Country and ASN come from CloudFront's
 * viewer headers, and only those the deployment trusts (a client reaching API
 * Gateway without CloudFront could send any value); the IP from API Gateway. A
 * value that is absent, untrusted or does not parse is not looked up, so its
 * check passes.
 */
export function blacklistProbes(
  request: Pick<RequestInfo, 'header' | 'sourceIp'>,
  hwid: string | undefined,
  trustedViewerHeaders: readonly ViewerHeader[],
): BlacklistProbe[] {
  const viewer = (type: ViewerHeader) => (trustedViewerHeaders.includes(type) ? request.header(`cloudfront-viewer-${type}`) : undefined);
  const raw: [BlacklistType, string | undefined][] = [
    ['country', viewer('country')],
    ['asn', viewer('asn')],
    ['ip', request.sourceIp || undefined],
    ['hwid', hwid],
  ];
  return raw.flatMap(([type, value]) => {
    const normalized = value === undefined ? undefined : normalizeBlacklistValue(type, value);
    return normalized === undefined ? [] : [{ type, value: normalized }];
  });
}

const blacklistCodes: Record<BlacklistType, ClientFailureCode> = {
  country: 'COUNTRY_BLACKLISTED',
  asn: 'ASN_BLACKLISTED',
  ip: 'IP_BLACKLISTED',
  hwid: 'HWID_BLACKLISTED',
};

/** Check 3 of docs/client-api.md#check-order: the first type in that page's order wins. */
export function checkBlacklists(listed: readonly BlacklistType[]): void {
  const first = (['country', 'asn', 'ip', 'hwid'] as const).find((type) => listed.includes(type));
  if (first) throw clientFailure(blacklistCodes[first]);
}

/** A license of another application is answered exactly like a missing one. */
export function licenseOfApp(license: License | undefined, appId: string): License {
  if (!license || license.app_id !== appId) throw clientFailure('LICENSE_NOT_FOUND');
  return license;
}

/** Whether an active license's expiry has passed (only a used license has one); within a grace period it still authenticates. */
export function pastExpiry(license: License, now: Date): boolean {
  return license.expires_at !== null && now.getTime() >= Date.parse(license.expires_at);
}

/**
 * Check 5 of docs/client-api.md#check-order: status first, then expiry,
 * allowing the subscription's grace (docs/licensing-models.md, "Grace periods") after it.
 */
export function checkLicenseState(license: License, now: Date, graceSeconds = 0): void {
  if (license.status !== 'active') throw clientFailure('LICENSE_NOT_ACTIVE');
  if (license.expires_at !== null && now.getTime() >= Date.parse(license.expires_at) + graceSeconds * 1000) {
    throw clientFailure('LICENSE_EXPIRED', { expires_at: license.expires_at });
  }
}

/** The grace a subscription gives its licenses; one of another application (answered as none at check 8) gives none. */
export function graceSecondsOf(subscription: Subscription | undefined, license: License): number {
  return subscription && subscription.app_id === license.app_id ? (subscription.grace_seconds ?? 0) : 0;
}

/** Check 6 of docs/client-api.md#check-order. */
export function checkApplication(app: App | undefined): asserts app is App {
  if (!app) throw clientFailure('APPLICATION_NOT_FOUND');
  if (app.status !== 'active') throw clientFailure('APPLICATION_NOT_ACTIVE');
}

/** Check 7 of docs/client-api.md#check-order: a null plan expiry never expires. */
export function checkTeam(team: Team | undefined, now: Date): void {
  if (!team || (team.plan_expires_at !== null && now.getTime() >= Date.parse(team.plan_expires_at))) {
    throw clientFailure('TEAM_ERROR');
  }
}

/** Check 8 of docs/client-api.md#check-order: a subscription of another application is as good as none. */
export function checkSubscription(subscription: Subscription | undefined, license: License): asserts subscription is Subscription {
  if (!subscription || subscription.app_id !== license.app_id) throw clientFailure('SUBSCRIPTION_ERROR');
  if (subscription.status !== 'active') throw clientFailure('SUBSCRIPTION_NOT_ACTIVE');
}

/**
 * Check 9 of docs/client-api.md#check-order: the HWID this request binds, if any. An unlocked license ignores the
 * HWID; a locked one needs one, accepts any of its bound HWIDs, binds a new one
 * while a seat is free (first use, after a reset, or a license with several
 * seats) and otherwise answers `HWID_MISMATCH`.
 */
export function hwidToBind(license: License, hwid: string | undefined, now: Date): string | undefined {
  if (!license.hwid_lock) return undefined;
  if (hwid === undefined) throw clientFailure('HWID_NOT_PROVIDED');
  if (license.hwids.includes(hwid)) return undefined;
  if (license.hwids.length < license.max_devices) return hwid;
  throw clientFailure('HWID_MISMATCH', {
    hwid_reset_allowed: hwidResetAvailable(license, now),
    last_hwid_reset_at: license.last_hwid_reset_at,
    hwid_reset_cooldown: hwidResetCooldown(license, now),
  });
}

export type SuccessCode =
  | 'LICENSE_VERIFIED_UNUSED_AND_UNLOCKED_KEY'
  | 'LICENSE_VERIFIED_UNUSED_AND_LOCKED_KEY'
  | 'LICENSE_VERIFIED_USED_AND_UNLOCKED_KEY'
  | 'LICENSE_VERIFIED_USED_AND_LOCKED_KEY';

export function successCode(firstUse: boolean, locked: boolean): SuccessCode {
  if (firstUse) return locked ? 'LICENSE_VERIFIED_UNUSED_AND_LOCKED_KEY' : 'LICENSE_VERIFIED_UNUSED_AND_UNLOCKED_KEY';
  return locked ? 'LICENSE_VERIFIED_USED_AND_LOCKED_KEY' : 'LICENSE_VERIFIED_USED_AND_UNLOCKED_KEY';
}
