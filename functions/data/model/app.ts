import * as z from 'zod/mini';
import { trialSettingsSchema } from './trial';
import { portalSettingsSchema } from './portal';

/** An application's current Ed25519 key pair; the private half only as the key vault's ciphertext. */
export const storedSigningKeySchema = z.lazy(() =>
  z.object({
    key_id: z.string(),
    /** The raw 32-byte public key, base64url. */
    public_key: z.string(),
    private_key_ciphertext: z.string(),
    created_at: z.string(),
  }),
);
export type StoredSigningKey = z.infer<typeof storedSigningKeySchema>;

export const appSchema = z.lazy(() =>
  z.object({
    app_id: z.string(),
    team_id: z.string(),
    name: z.string(),
    status: z.enum(['active', 'inactive']),
    created_at: z.string(),
    /** Absent on applications made before signing existed, until their first need. */
    signing_key: z.optional(storedSigningKeySchema),
    /** Seconds an offline token lives at most; absent: the default. */
    offline_token_ttl: z.optional(z.number()),
    /** The longest `borrow_seconds` /auth accepts; absent: the default of lease.ts. */
    max_borrow_seconds: z.optional(z.int()),
    /** The longest license file /license-file makes; absent: the default of license-file.ts. */
    max_license_file_seconds: z.optional(z.int()),
    /** What a new license gets when its create request does not say; absent: the defaults of new-license.ts. */
    default_hwid_reset_allowed: z.optional(z.boolean()),
    default_hwid_reset_interval: z.optional(z.int().check(z.nonnegative())),
    /** Trials of devices that ask (POST /trial); absent or null: none. */
    trial: z.optional(z.nullable(trialSettingsSchema)),
    /** The customer portal (docs/portal.md); absent: off. */
    portal: z.optional(portalSettingsSchema),
    /** The key of the portal's hashes of customers' emails and codes: random, set when the portal is first switched on. */
    portal_secret: z.optional(z.string()),
    /** The key that names each device's trial license (client/trial.ts): random, set when trials are first configured. */
    trial_secret: z.optional(z.string()),
  }),
);
export type App = z.infer<typeof appSchema>;

/** Secrets an application gets with the setting that first needs them (`/app/settings`): never shown, in no event. */
export const appSecretFields = ['portal_secret', 'trial_secret'] as const satisfies readonly (keyof App)[];
export type AppSecrets = Partial<Pick<App, (typeof appSecretFields)[number]>>;

/** The owner's settings of an application (`/app/settings`): a change of any of them is an `app.settings_changed` event. */
export const appSettingsFields = ['offline_token_ttl', 'default_hwid_reset_allowed', 'default_hwid_reset_interval', 'max_borrow_seconds', 'max_license_file_seconds', 'trial', 'portal'] as const satisfies readonly (keyof App)[];

/** What `/app/update` and the admin CLI's `app rename` and `app set-status` change: an `app.updated` event. */
export type AppChange = Partial<Pick<App, 'name' | 'status'>>;

/** The settings an owner changes through /app/settings. */
export type AppSettingsChange = Partial<Pick<App, (typeof appSettingsFields)[number]>>;
