import { randomUUID } from 'node:crypto';
import type { Deps } from '#core/deps';
import type { App } from '#data/model/app';
import type { License } from '#data/model/license';
import type { Lease } from '#data/model/lease';
import type { Subscription } from '#data/model/subscription';
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

/** A compact JWS signed with the application's key: what a program may trust while offline, until `exp`. */
export async function offlineToken(deps: Deps, input: OfflineTokenInput): Promise<string> {
  const { app, license, subscription } = input;
  // jose is loaded on the container's first offline token: an /auth without one never needs it.
  const [signer, { SignJWT }] = await Promise.all([signerOf(deps, app), import('jose')]);
  const nowMs = deps.clock.now().getTime();
  const iat = Math.floor(nowMs / 1000);
  const ttl = app.offline_token_ttl ?? offlineTokenTtl.defaultSeconds;
  // Issued in grace, a token lasts until the grace ends (docs/licensing-models.md, "Grace periods").
  const until = graceUntil(license.expires_at, subscription.grace_seconds);
  const end = until !== null && nowMs >= Date.parse(license.expires_at!) ? until : license.expires_at;
  const licenseExpiry = end === null ? Infinity : Math.floor(Date.parse(end) / 1000);
  const claims = {
    hwid: license.hwid,
    hwids: license.hwids,
    subscription_name: subscription.name,
    subscription_level: subscription.level,
    expires_at: license.expires_at,
    features: effectiveFeatures(subscription, license),
    ...(input.nonce !== undefined ? { nonce: input.nonce } : {}),
    ...(input.borrow ? { borrowed: true } : {}),
  };
  // A borrowed seat's token lasts exactly as long as the borrow (docs/licensing-models.md, "Floating seats").
  const exp = input.borrow ? Math.floor(Date.parse(input.borrow.expires_at) / 1000) : Math.min(licenseExpiry, iat + ttl);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'EdDSA', kid: signer.keyId, typ: 'JWT' })
    .setIssuer(app.app_id)
    .setSubject(license.key)
    .setIssuedAt(iat)
    .setNotBefore(iat)
    .setExpirationTime(exp)
    .setJti(randomUUID())
    .sign(signer.privateKey);
}
