import { randomUUID } from 'node:crypto';
import type { Deps } from '#core/deps';
import type { App } from '#data/model/app';
import type { License } from '#data/model/license';
import type { Lease } from '#data/model/lease';
import type { Subscription } from '#data/model/subscription';
import { loadJose } from '#core/signing/jose';
import { signerOf } from '#core/signing/signing-keys';
import { effectiveFeatures, graceUntil } from '#shared/entitlements';

/** docs/client-api.md, "Signed answers and offline tokens": 7 days unless the application's settings say otherwise (60 s to 365 days). */
export const offlineTokenTtl = { defaultSeconds: 7 * 86400, minSeconds: 60, maxSeconds: 365 * 86400 } as const;

export interface OfflineTokenInput {
  app: App;
  license: License;
  subscription: Subscription;
  nonce: string | undefined;
  /** On a floating license, the device's borrowed lease after this /auth: the token ends exactly with it. */
  borrow?: Lease;
}

/**
 * The last instant a license lets a program work offline, in milliseconds: its expiry, or the end of
 * the grace it is in (docs/licensing-models.md, "Grace periods"); Infinity for a license that never ends.
 */
export function offlineEnd(license: Pick<License, 'expires_at'>, subscription: Pick<Subscription, 'grace_seconds'>, nowMs: number): number {
  const until = graceUntil(license.expires_at, subscription.grace_seconds);
  const end = until !== null && license.expires_at !== null && nowMs >= Date.parse(license.expires_at) ? until : license.expires_at;
  return end === null ? Infinity : Date.parse(end);
}

/** What a token or file signed for a license says of it, beside the registered claims. */
function licenseClaims(input: Pick<OfflineTokenInput, 'license' | 'subscription' | 'nonce'>, hwid: string | null) {
  const { license, subscription } = input;
  return {
    hwid,
    hwids: license.hwids,
    subscription_name: subscription.name,
    subscription_level: subscription.level,
    expires_at: license.expires_at,
    features: effectiveFeatures(subscription, license),
    ...(input.nonce !== undefined ? { nonce: input.nonce } : {}),
  };
}

/** The registered claims and header of everything signed for a license: a compact JWS made with jose. */
interface Signed {
  typ: 'JWT' | 'license+jwt';
  iat: number;
  exp: number;
  jti: string;
}

async function signForLicense(deps: Deps, app: App, license: License, claims: Record<string, unknown>, signed: Signed): Promise<string> {
  const [signer, { SignJWT }] = await Promise.all([signerOf(deps, app), loadJose()]);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'EdDSA', kid: signer.keyId, typ: signed.typ })
    .setIssuer(app.app_id)
    .setSubject(license.key)
    .setIssuedAt(signed.iat)
    .setNotBefore(signed.iat)
    .setExpirationTime(signed.exp)
    .setJti(signed.jti)
    .sign(signer.privateKey);
}

/** A compact JWS signed with the application's key: what a program may trust while offline, until `exp`. */
export async function offlineToken(deps: Deps, input: OfflineTokenInput): Promise<string> {
  const { app, license, subscription } = input;
  const nowMs = deps.clock.now().getTime();
  const iat = Math.floor(nowMs / 1000);
  const ttl = app.offline_token_ttl ?? offlineTokenTtl.defaultSeconds;
  const licenseExpiry = Math.floor(offlineEnd(license, subscription, nowMs) / 1000);
  const claims = { ...licenseClaims(input, license.hwid), ...(input.borrow ? { borrowed: true } : {}) };
  // A borrowed seat's token lasts exactly as long as the borrow (docs/licensing-models.md, "Floating seats").
  const exp = input.borrow ? Math.floor(Date.parse(input.borrow.expires_at) / 1000) : Math.min(licenseExpiry, iat + ttl);
  return signForLicense(deps, app, license, claims, { typ: 'JWT', iat, exp, jti: randomUUID() });
}

export interface LicenseFileInput extends Omit<OfflineTokenInput, 'borrow'> {
  /** The device the file is for: its `hwid` claim. */
  hwid: string;
  /** The license data the check answered, carried whole as `data`. */
  data: Record<string, unknown>;
  airGapped: boolean;
  /** Its `jti`, `iat` and `exp` as the license item records them. */
  jti: string;
  iat: number;
  exp: number;
}

/**
 * A license file (docs/client-api.md, "POST /license-file"): the offline token's claims for this
 * device, plus the license data and `air_gapped`, as a compact JWS of type `license+jwt`.
 */
export function signedLicenseFile(deps: Deps, input: LicenseFileInput): Promise<string> {
  const claims = { ...licenseClaims(input, input.hwid), data: input.data, air_gapped: input.airGapped };
  return signForLicense(deps, input.app, input.license, claims, { typ: 'license+jwt', iat: input.iat, exp: input.exp, jti: input.jti });
}
