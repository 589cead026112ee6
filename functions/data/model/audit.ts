import * as z from 'zod/mini';
import type { Addition, DayCounter } from './stats';

/** An audit item (the events consumer writes them from the table's stream): what /audit/get-bulk lists. */
export const auditEventSchema = z.lazy(() =>
  z.object({
    id: z.string(),
    type: z.string(),
    app_id: z.string(),
    /** The license key, subscription id, or `<type>:<value>` of a blacklist entry. */
    subject: z.string(),
    at: z.string(),
    /** `api_key:<first 8 hex of its hash>`, `client` or `admin`. */
    actor: z.string(),
    before: z.optional(z.record(z.string(), z.unknown())),
    after: z.optional(z.record(z.string(), z.unknown())),
  }),
);
export type AuditEvent = z.infer<typeof auditEventSchema>;

/** What one stream record does to the table: audit items for its events, additions to counters. */
export interface RecordWork {
  /** The stream record's id: its mark makes the work happen once. */
  recordId: string;
  /** The stream record's sequence number: orders the audit log within a second. */
  sequenceNumber: string;
  events: AuditEvent[];
  counts: { appId: string; day: string; counter: Exclude<DayCounter, 'auth_failures'> }[];
  /** What the record changes in its app's totals and expiry counts. */
  additions: Addition[];
  /** License events are also listed under their license. */
  licenseKeyOf: (event: AuditEvent) => string | undefined;
}
