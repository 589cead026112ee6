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
