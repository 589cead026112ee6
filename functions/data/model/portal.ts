import * as z from 'zod/mini';

/** An application's customer portal as `/app/settings` stores it (docs/portal.md#switching-it-on); absent: off, with these defaults. */
export const portalSettingsSchema = z.lazy(() =>
  z.object({
    enabled: z.boolean(),
    sender_name: z.optional(z.string()),
    support_url: z.optional(z.string()),
    allow_device_release: z.boolean(),
    allow_license_files: z.boolean(),
  }),
);
export type PortalSettings = z.infer<typeof portalSettingsSchema>;

/** What an application that never set `portal` has: off, and both self-service actions allowed once it is on. */
export const portalDefaults: PortalSettings = { enabled: false, allow_device_release: true, allow_license_files: true };

export const portalLimits = {
  maxSenderName: 64,
  maxSupportUrl: 2048,
} as const;
/** The rules of signing in (docs/portal.md#signing-in). */
export const signInRules = {
  codeSeconds: 600,
  /** The wrong tries a code takes: the last of them burns it. */
  wrongCodesAllowed: 5,
  sessionSeconds: 3600,
  windowSeconds: 3600,
  perEmailPerWindow: 5,
  perAddressPerWindow: 30,
} as const;

/** A customer's current sign-in code: only its hash, with the wrong tries it took. */
export const portalCodeSchema = z.lazy(() =>
  z.object({
    code_hash: z.string(),
    wrong_tries: z.int(),
    /** Epoch seconds. */
    expires_at: z.int(),
  }),
);
export type PortalCode = z.infer<typeof portalCodeSchema>;

/** When one email, or one source address, signed in to an application in the last window: epoch seconds. */
export const signInsSchema = z.lazy(() => z.object({ starts: z.array(z.int()) }));

/**
 * A signed-in customer: one email of one application, until `expires_at` (epoch seconds). Stored
 * under the SHA-256 of its token. It keeps the address (to find the customer's licenses) and its
 * keyed fingerprint (what events and logs show instead).
 */
export const portalSessionSchema = z.lazy(() =>
  z.object({
    app_id: z.string(),
    email: z.string(),
    email_fingerprint: z.string(),
    expires_at: z.int(),
  }),
);
export type PortalSession = z.infer<typeof portalSessionSchema>;

/** What one sign-in writes: both counts as they were read and as they become, and the new code. */
export interface SignInRecord {
  appId: string;
  emailHash: string;
  addressHash: string;
  email: { read: number[] | undefined; starts: number[] };
  address: { read: number[] | undefined; starts: number[] };
  /** When both counts' items may go (epoch seconds). */
  countsExpireAt: number;
  code: PortalCode;
}
