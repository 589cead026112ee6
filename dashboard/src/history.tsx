import { useEffect, useRef, useState } from 'preact/hooks';
import { call, type Answer, type App, type Body } from './api';
import { href, paths, useQuery } from './routes';
import { ErrorNote, Field, Pager, Time, duration, shortTime, useAction } from './ui';

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
  'license.file_issued': 'License file made',
  'license.file_returned': 'License file returned',
  'license.trial_started': 'Trial started',
  'license.trial_converted': 'Trial bought (converted)',
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
  'portal.signed_in': 'Customer signed in to the portal',
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
  'max_license_file_seconds',
  'default_hwid_reset_interval',
  'grace_seconds',
]);
const isTimeField = (field: string) => field.endsWith('_at') || field === 'last_login';

/** Bookkeeping every change moves along: no owner's change in itself. */
const unannounced = new Set(['last_login', 'leases', 'files']);

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
function EventItem({ event, appId, showSubject }: { event: AuditEvent; appId: string; showSubject: boolean }) {
  const moved = changes(event);
  const license = event.type.startsWith('license.') && event.type !== 'license.deleted';
  return (
    <li class="event" data-type={event.type}>
      <div class="row">
        <strong>{labelOf(event.type)}</strong>
        {showSubject &&
          (license ? (
            <a href={href(paths.license(appId, event.subject))}>
              <code>{event.subject}</code>
            </a>
          ) : (
            <code>{event.subject}</code>
          ))}
        <span class="hint">
          by {actorWords(event.actor)}, <Time iso={event.at} />
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

export function EventList({ events, appId, showSubject }: { events: AuditEvent[]; appId: string; showSubject: boolean }) {
  return (
    <ol class="events">
      {events.map((event) => (
        <EventItem key={event.id} event={event} appId={appId} showSubject={showSubject} />
      ))}
    </ol>
  );
}

/**
 * One page of the log at a time, with the pages reached so far kept for going
 * back; new filters start at page 1, and an answer to an earlier request than
 * the latest is dropped, so a slow answer never shows under newer filters.
 */
function useAuditPages(filters: Body<'/audit/get-bulk'>, perPage: number) {
  const key = JSON.stringify(filters);
  const [paging, setPaging] = useState<{ key: string; cursors: (string | undefined)[]; reads: number }>({ key, cursors: [undefined], reads: 0 });
  const cursors = paging.key === key ? paging.cursors : [undefined];
  const setCursors = (next: (string | undefined)[]) => setPaging({ key, cursors: next, reads: paging.reads + 1 });
  const [shown, setShown] = useState<{ request: string; page: Answer<'/audit/get-bulk'> } | null>(null);
  const latest = useRef('');
  const action = useAction();
  const cursor = cursors.at(-1);
  const request = `${key}\n${cursor ?? ''}\n${paging.reads}`;
  useEffect(() => {
    latest.current = request;
    void action.run(async () => {
      const page = await call('/audit/get-bulk', { ...filters, per_page: perPage, ...(cursor ? { cursor } : {}) });
      if (latest.current === request) setShown({ request, page });
    });
  }, [request]);
  return { page: shown?.request === request ? shown.page : null, cursors, setCursors, ...action };
}

/** The stream records a change within about a second of the write (docs/events.md): the timeline looks again after that. */
const recordingDelayMs = 1500;

/** The history of one license, newest first (license detail); `changes` counts the actions taken on the screen. */
export function LicenseTimeline({ appId, licenseKey, changes }: { appId: string; licenseKey: string; changes: number }) {
  const filters = { app_id: appId, license_key: licenseKey };
  const { page, cursors, setCursors, busy, error } = useAuditPages(filters, 10);
  useEffect(() => {
    if (changes === 0) return;
    const timer = setTimeout(() => setCursors([undefined]), recordingDelayMs);
    return () => clearTimeout(timer);
  }, [changes]);
  return (
    <div class="card wide" role="region" aria-label="History">
      <div class="row">
        <h2>History</h2>
        <span class="spacer" />
        <button type="button" class="quiet" disabled={busy} onClick={() => setCursors([undefined])}>
          Refresh history
        </button>
        <a href={href(paths.screen(appId, 'audit', { license_key: licenseKey }))}>In the audit log</a>
      </div>
      <p class="hint">What changed on this license, who changed it and when, newest first. Logins after the first are counted in Statistics, not listed.</p>
      <ErrorNote error={error} />
      {page && page.data.length === 0 && <p>No recorded change yet.</p>}
      {page && <EventList events={page.data} appId={appId} showSubject={false} />}
      <Pager cursors={cursors} next={page?.next_cursor} busy={busy} onChange={setCursors} />
    </div>
  );
}

type FilterName = 'type' | 'license_key' | 'actor' | 'from' | 'to';

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
export function AuditScreen({ app }: { app: App }) {
  const [filters, setFilters] = useQuery<FilterName>();
  const type = filters.type !== undefined && filters.type in eventLabels ? (filters.type as AuditType) : undefined;
  const body: Body<'/audit/get-bulk'> = {
    app_id: app.app_id,
    ...(type ? { type } : {}),
    ...(filters.license_key ? { license_key: filters.license_key } : {}),
    ...(filters.actor ? { actor: filters.actor } : {}),
    ...(filters.from ? { from: filters.from } : {}),
    ...(filters.to ? { to: filters.to } : {}),
  };
  const { page, cursors, setCursors, busy, error } = useAuditPages(body, 25);
  const onFilters = (next: Partial<Record<FilterName, string>>) =>
    setFilters({ type: next.type ?? '', license_key: next.license_key ?? '', actor: next.actor ?? '', from: next.from ?? '', to: next.to ?? '' });
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
            type: text('type'),
            license_key: text('license_key'),
            actor: text('actor'),
            from: instant(String(form.get('from') ?? '')),
            to: instant(String(form.get('to') ?? '')),
          });
        }}
      >
        <Field label="Event type">
          <select name="type" key={type ?? ''}>
            <option value="" selected={type === undefined}>
              Any type
            </option>
            {(Object.keys(eventLabels) as AuditType[]).map((option) => (
              <option key={option} value={option} selected={option === type}>
                {eventLabels[option]}
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
      {page && <EventList events={page.data} appId={app.app_id} showSubject />}
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
