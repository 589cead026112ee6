import { useEffect, useState } from 'preact/hooks';
import { call, type Answer, type App, type Body } from './api';
import { ErrorNote, Field, Pager, duration, shortTime, useAction } from './ui';

/**
 * The audit log in words: what `/audit/get-bulk` records (docs/events.md), as the
 * Audit screen of an application and the timeline of one license show it.
 */
export type AuditEvent = Answer<'/audit/get-bulk'>['data'][number];
type AuditType = NonNullable<Body<'/audit/get-bulk'>['type']>;

/** Every event type the API filters by, in words: the API's list types this record, so a new type does not compile until it is named. */
export const eventLabels: Record<AuditType, string> = {
  'license.created': 'License created',
  'license.activated': 'License activated (first use)',
  'license.extended': 'License extended',
  'license.status_changed': 'License status changed',
  'license.deleted': 'License deleted',
  'license.hwid_bound': 'Device bound',
  'license.hwid_reset': 'Devices reset',
  'license.credentials_changed': 'Username or password changed',
  'license.metadata_changed': 'License settings changed',
  'license.seat_taken': 'Floating seat taken',
  'license.seat_released': 'Floating seat released',
  'license.usage_limit_reached': 'Usage limit reached',
  'license.usage_reset': 'Usage reset',
  'subscription.created': 'Subscription created',
  'subscription.changed': 'Subscription changed',
  'subscription.deleted': 'Subscription deleted',
  'blacklist.added': 'Added to the blacklist',
  'blacklist.deleted': 'Removed from the blacklist',
  'app.created': 'Application created',
  'app.updated': 'Application renamed or paused/resumed',
  'app.settings_changed': 'Application settings changed',
  'app.signing_key_rotated': 'Signing key rotated',
  'webhook.created': 'Webhook endpoint added',
  'webhook.updated': 'Webhook endpoint changed',
  'webhook.deleted': 'Webhook endpoint deleted',
  'webhook.secret_rotated': 'Webhook secret rotated',
  'webhook.disabled': 'Webhook endpoint disabled after failures',
  'stripe.connected': 'Stripe connected',
  'stripe.changed': 'Stripe connection changed',
  'stripe.disconnected': 'Stripe disconnected',
};

export const labelOf = (type: string): string => eventLabels[type as AuditType] ?? type;

/** Who made a change, as events name it (docs/events.md, `actor`). */
export function actorWords(actor: string): string {
  if (actor.startsWith('api_key:')) return `API key ${actor.slice('api_key:'.length)}…`;
  return { client: 'a client program (/auth, /register)', admin: 'the admin CLI', service: 'the service', stripe: 'Stripe' }[actor] ?? actor;
}

/** Fields of seconds, shown as durations; times are the fields ending in `_at` and `last_login`. */
const secondsFields = new Set([
  'initial_duration',
  'hwid_reset_interval',
  'lease_seconds',
  'offline_token_ttl',
  'max_borrow_seconds',
  'default_hwid_reset_interval',
  'grace_seconds',
]);
const isTimeField = (field: string) => field.endsWith('_at') || field === 'last_login';

/** Bookkeeping every change moves along: no owner's change in itself. */
const unannounced = new Set(['last_login', 'leases']);

function valueWords(field: string, value: unknown): string {
  if (value === null || value === undefined || (Array.isArray(value) && value.length === 0)) return 'none';
  if (typeof value === 'boolean') return value ? 'on' : 'off';
  if (typeof value === 'number' && secondsFields.has(field)) return duration(value);
  if (typeof value === 'string' && isTimeField(field)) return shortTime(value);
  if (Array.isArray(value) && value.every((item) => typeof item !== 'object')) return value.join(', ');
  if (typeof value === 'object') {
    const text = JSON.stringify(value);
    return text.length > 80 ? `${text.slice(0, 79)}…` : text;
  }
  return String(value);
}

/** `field: before → after` for each field the change moved; on creation or deletion, nothing (the type says it). */
export function changes(event: AuditEvent): string[] {
  const { before, after } = event;
  if (!before || !after) return [];
  const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  return fields
    .filter((field) => !unannounced.has(field) && JSON.stringify(before[field]) !== JSON.stringify(after[field]))
    .map((field) => `${field.replace(/_/g, ' ')}: ${valueWords(field, before[field])} → ${valueWords(field, after[field])}`);
}

/** One event in words: what happened, what changed, by whom, when (UTC on hover). */
function EventItem({ event, showSubject }: { event: AuditEvent; showSubject: boolean }) {
  const moved = changes(event);
  return (
    <li class="event" data-type={event.type}>
      <div class="row">
        <strong>{labelOf(event.type)}</strong>
        {showSubject && <code>{event.subject}</code>}
        <span class="hint">
          by {actorWords(event.actor)}, <time dateTime={event.at} title={event.at}>{shortTime(event.at)}</time>
        </span>
      </div>
      {moved.length > 0 && (
        <ul class="changes">
          {moved.map((text) => (
            <li key={text}>{text}</li>
          ))}
        </ul>
      )}
    </li>
  );
}

export function EventList({ events, showSubject }: { events: AuditEvent[]; showSubject: boolean }) {
  return (
    <ol class="events">
      {events.map((event) => (
        <EventItem key={event.id} event={event} showSubject={showSubject} />
      ))}
    </ol>
  );
}

/** One page of the log at a time, with the pages reached so far kept for going back. */
function useAuditPages(filters: Body<'/audit/get-bulk'>, perPage: number) {
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [page, setPage] = useState<Answer<'/audit/get-bulk'> | null>(null);
  const action = useAction();
  const key = JSON.stringify(filters);
  useEffect(() => setCursors([undefined]), [key]);
  useEffect(() => {
    const cursor = cursors.at(-1);
    void action.run(async () => setPage(await call('/audit/get-bulk', { ...filters, per_page: perPage, ...(cursor ? { cursor } : {}) })));
  }, [key, cursors]);
  return { page, cursors, setCursors, ...action };
}

/** The history of one license, newest first (license detail). */
export function LicenseTimeline({ appId, licenseKey, refresh }: { appId: string; licenseKey: string; refresh: number }) {
  const filters = { app_id: appId, license_key: licenseKey };
  const { page, cursors, setCursors, busy, error } = useAuditPages(filters, 10);
  useEffect(() => {
    if (refresh > 0) setCursors([undefined]);
  }, [refresh]);
  return (
    <div class="card wide" role="region" aria-label="History">
      <h2>History</h2>
      <p class="hint">What changed on this license, who changed it and when. Changes appear a moment after they are made; logins other than the first are counted, not listed.</p>
      <ErrorNote error={error} />
      {page && page.data.length === 0 && <p>No recorded change yet.</p>}
      {page && <EventList events={page.data} showSubject={false} />}
      <Pager cursors={cursors} next={page?.next_cursor} busy={busy} onChange={setCursors} />
    </div>
  );
}

export interface AuditFilters {
  type?: AuditType;
  license_key?: string;
  actor?: string;
  from?: string;
  to?: string;
}

/** A `datetime-local` value (the browser's time zone) as the ISO instant the API takes. */
const instant = (local: string): string | undefined => (local ? new Date(local).toISOString() : undefined);
/** An ISO instant as a `datetime-local` value in the browser's time zone. */
const localInput = (iso: string | undefined): string => {
  if (!iso) return '';
  const time = new Date(iso);
  return new Date(time.getTime() - time.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};

/**
 * The Audit screen of an application: every recorded change, filtered by type,
 * license, actor and time; and the failed /auth attempts, which the service
 * counts per day rather than records one by one.
 */
export function AuditScreen({ app, filters, onFilters }: { app: App; filters: AuditFilters; onFilters: (filters: AuditFilters) => void }) {
  const body: Body<'/audit/get-bulk'> = { app_id: app.app_id, ...filters };
  const { page, cursors, setCursors, busy, error } = useAuditPages(body, 25);
  return (
    <section aria-labelledby="audit-title">
      <h1 id="audit-title">Audit log</h1>
      <p class="hint">
        Every change of a license, subscription, blacklist entry, webhook or of this application, newest first, with who made it. Events are kept for 90 days unless the
        deployment says otherwise.
      </p>
      <form
        class="row filters"
        aria-label="Audit filters"
        onSubmit={(event) => {
          event.preventDefault();
          const form = new FormData(event.currentTarget);
          const text = (name: string) => String(form.get(name) ?? '').trim() || undefined;
          onFilters({
            type: text('type') as AuditType | undefined,
            license_key: text('license_key'),
            actor: text('actor'),
            from: instant(String(form.get('from') ?? '')),
            to: instant(String(form.get('to') ?? '')),
          });
        }}
      >
        <Field label="Event type">
          <select name="type" defaultValue={filters.type ?? ''} key={filters.type ?? ''}>
            <option value="">Any type</option>
            {(Object.keys(eventLabels) as AuditType[]).map((type) => (
              <option key={type} value={type}>
                {eventLabels[type]}
              </option>
            ))}
          </select>
        </Field>
        <Field label="License key">
          <input name="license_key" defaultValue={filters.license_key ?? ''} key={filters.license_key ?? ''} autocomplete="off" />
        </Field>
        <Field label="Actor">
          <input name="actor" placeholder="api_key:3f9c2a1b, client, admin" defaultValue={filters.actor ?? ''} key={filters.actor ?? ''} autocomplete="off" />
        </Field>
        <Field label="From (your time)">
          <input name="from" type="datetime-local" defaultValue={localInput(filters.from)} key={filters.from ?? ''} />
        </Field>
        <Field label="Until (your time)">
          <input name="to" type="datetime-local" defaultValue={localInput(filters.to)} key={filters.to ?? ''} />
        </Field>
        <button type="submit" disabled={busy}>
          Show events
        </button>
        <button type="button" class="quiet" onClick={() => onFilters({})}>
          Clear filters
        </button>
      </form>
      <ErrorNote error={error} />
      {page && page.data.length === 0 && <p>No event matches these filters.</p>}
      {page && <EventList events={page.data} showSubject />}
      <Pager cursors={cursors} next={page?.next_cursor} busy={busy} onChange={setCursors} numbered />
      <AuthFailures app={app} />
    </section>
  );
}

/** Failed /auth attempts: counted per UTC day (docs/management-api.md#audit-log); the service keeps no record of each attempt. */
function AuthFailures({ app }: { app: App }) {
  const [days, setDays] = useState<Answer<'/app/stats'>['data']['days'] | null>(null);
  const { error, run } = useAction();
  useEffect(() => {
    void run(async () => setDays((await call('/app/stats', { app_id: app.app_id, days: 14 })).data.days));
  }, [app.app_id]);
  const failing = days?.filter((day) => day.auth_failures > 0).reverse() ?? [];
  return (
    <div class="card wide" role="region" aria-label="Failed sign-ins">
      <h2>Failed /auth attempts</h2>
      <p class="hint">
        Refused client sign-ins (wrong key, paused or expired license, blacklisted, device mismatch…) are counted per UTC day, not recorded one by one: no key, device or
        address of a failed attempt is kept. Last 14 days:
      </p>
      <ErrorNote error={error} />
      {days && failing.length === 0 && <p>None in the last 14 days.</p>}
      {failing.length > 0 && (
        <ul class="names">
          {failing.map((day) => (
            <li key={day.date}>
              {day.date}: {day.auth_failures} failed, {day.logins} successful
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
