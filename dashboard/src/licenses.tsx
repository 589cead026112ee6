import { Can } from './access';
import { useEffect, useRef, useState } from 'preact/hooks';
import { call, errorWords, type Body, type BulkPath, type App, type License, type Subscription } from './api';
import { LicenseDetail } from './license-detail';
import { AllMatches, SearchResults, type ListBody } from './license-search';
import { href, navigate, paths, useQuery } from './routes';
import { ConfirmDialog, csv, download, duration, DurationFields, ErrorNote, Field, Notice, Pager, plural, readDuration, TableWrap, Tags, Time, trialTags, useAction, wholeNumber, type ConfirmRequest } from './ui';

/** The list's filters, kept in the address's query (`#/apps/<app_id>/licenses?status=paused&tag=beta`). */
interface Filters {
  status: '' | 'active' | 'paused';
  subscription_id: string;
  tag: string;
  /** Expired, never used, or expiring within `days` days. */
  expiry: '' | 'expired' | 'unused' | 'expiring';
  days: string;
  /** `created` (newest first), `oldest`, `expiry` (soonest first), `expiry-last`. */
  sort: '' | 'oldest' | 'expiry' | 'expiry-last';
  /** A /license/find query: a key, username, bound device or customer email. */
  q: string;
}

const expiryValues = ['expired', 'unused', 'expiring'] as const;
const sortValues = ['oldest', 'expiry', 'expiry-last'] as const;
const oneOf = <T extends string>(values: readonly T[], value: string | undefined): T | '' => (values.includes(value as T) ? (value as T) : '');

/** The listing's body for these filters (docs/management-api.md, "Licenses"). */
function listBody(appId: string, filters: Filters): ListBody {
  const days = Math.max(1, Math.min(3650, Math.round(Number(filters.days) || 7)));
  return {
    app_id: appId,
    ...(filters.status ? { status: filters.status } : {}),
    ...(filters.subscription_id ? { subscription_id: filters.subscription_id } : {}),
    ...(filters.tag.trim() ? { tag: filters.tag.trim() } : {}),
    ...(filters.expiry === 'expired' ? { expired: true } : filters.expiry === 'unused' ? { unused: true } : filters.expiry === 'expiring' ? { expiring_within_days: days } : {}),
    ...(filters.sort === 'expiry' || filters.sort === 'expiry-last' ? { sort_field: 'expires_at' as const } : {}),
    ...(filters.sort === 'oldest' || filters.sort === 'expiry' ? { sort_order: 'asc' as const } : {}),
  };
}

const perPage = 25;

/** One license at its own address, with the application's subscriptions for the change-subscription form. */
export function LicenseScreen({ app, licenseKey }: { app: App; licenseKey: string }) {
  const [subscriptions, setSubscriptions] = useState<Subscription[]>([]);
  const { run } = useAction();
  useEffect(() => {
    void run(async () => setSubscriptions((await call('/subscription/get-bulk', { app_id: app.app_id })).data));
  }, [app.app_id]);
  return <LicenseDetail licenseKey={licenseKey} subscriptions={subscriptions} listHref={href(paths.screen(app.app_id, 'licenses'))} onDeleted={() => navigate(paths.screen(app.app_id, 'licenses'))} />;
}

export function Licenses({ app }: { app: App }) {
  // null until loaded: an empty list means the application has none, not that they could not be read.
  const [subscriptions, setSubscriptions] = useState<Subscription[] | null>(null);
  const [query, setQuery] = useQuery<keyof Filters>();
  const filters: Filters = {
    status: query.status === 'active' || query.status === 'paused' ? query.status : '',
    subscription_id: query.subscription_id ?? '',
    tag: query.tag ?? '',
    expiry: oneOf(expiryValues, query.expiry),
    days: query.days ?? '7',
    sort: oneOf(sortValues, query.sort),
    q: query.q ?? '',
  };
  const body = listBody(app.app_id, filters);
  const filterKey = JSON.stringify(body);
  // Cursors of the pages before this one, so "Previous" can go back without the API keeping state; new filters start at page 1.
  const [paging, setPaging] = useState<{ filterKey: string; cursors: (string | undefined)[] }>({ filterKey, cursors: [undefined] });
  const cursors = paging.filterKey === filterKey ? paging.cursors : [undefined];
  const setCursors = (next: (string | undefined)[]) => setPaging({ filterKey, cursors: next });
  const [page, setPage] = useState<{ licenses: License[]; next: string | null } | null>(null);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [creating, setCreating] = useState(false);
  const [lookup, setLookup] = useState(query.q ?? '');
  const [notice, setNotice] = useState('');
  const [confirm, setConfirm] = useState<ConfirmRequest | null>(null);
  const { busy, error, run } = useAction();

  const cursor = cursors[cursors.length - 1];
  // Filters change faster than a slow service answers: only the answer to the latest listing is shown.
  const latest = useRef(0);
  const load = () => {
    const ticket = ++latest.current;
    return run(async () => {
      const listed = await call('/license/get-bulk', { ...body, per_page: perPage, ...(cursor ? { cursor } : {}) });
      if (ticket !== latest.current) return;
      setPage({ licenses: listed.data, next: listed.next_cursor ?? null });
      setSelected(new Set());
    });
  };

  useEffect(() => {
    void run(async () => setSubscriptions((await call('/subscription/get-bulk', { app_id: app.app_id })).data));
  }, [app.app_id]);
  useEffect(() => {
    void load();
  }, [app.app_id, filterKey, paging]);

  const setFilter = (patch: Partial<Filters>, options?: { replace?: boolean }) => setQuery(patch, options);

  const bulk = async <P extends BulkPath>(path: P, extra: Omit<Body<P>, 'license_keys'>, done: string) => {
    const keys = [...selected];
    setNotice('');
    const result = await run(() => call(path, { license_keys: keys, ...extra } as Body<P>));
    if (!result) return;
    const { succeeded, failed } = result.data;
    setNotice(`${done}: ${succeeded.length} succeeded${failed.length ? `, ${failed.length} failed (${failed.map((f) => `${f.license_key}: ${errorWords(f.error_code)}`).join(' ')})` : ''}.`);
    await load();
  };

  if (creating) {
    return (
      <CreateLicenses
        app={app}
        subscriptions={subscriptions ?? []}
        onDone={() => {
          setCreating(false);
          setCursors([undefined]);
        }}
      />
    );
  }

  const licenses = page?.licenses ?? [];
  const allSelected = licenses.length > 0 && licenses.every((license) => selected.has(license.key));
  const toggle = (key: string) => {
    const next = new Set(selected);
    if (next.has(key)) next.delete(key);
    else next.add(key);
    setSelected(next);
  };

  return (
    <section aria-labelledby="licenses-title">
      <div class="row">
        <h1 id="licenses-title">Licenses</h1>
        <span class="spacer" />
        <Can path="/license/create-bulk"><button type="button" onClick={() => setCreating(true)} disabled={!subscriptions?.length} title={subscriptions?.length === 0 ? 'Create a subscription first' : undefined}>
          Create licenses
        </button></Can>
      </div>
      {subscriptions?.length === 0 && (
        <p class="hint">
          Licenses belong to a subscription: create one under <a href={href(paths.screen(app.app_id, 'subscriptions'))}>Subscriptions</a> first.
        </p>
      )}
      <form
        class="row"
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          setFilter({ q: lookup.trim() });
        }}
      >
        <Field label="Find a license">
          <input name="lookup" value={lookup} onInput={(event) => setLookup(event.currentTarget.value)} placeholder="Key, username, device (HWID) or email" />
        </Field>
        <button type="submit">Find</button>
      </form>
      {filters.q && (
        <SearchResults
          app={app}
          query={filters.q}
          onClear={() => {
            setLookup('');
            setFilter({ q: '' });
          }}
        />
      )}
      <div class="row filters">
        <Field label="Status">
          <select name="status" value={filters.status} onChange={(event) => setFilter({ status: event.currentTarget.value as Filters['status'] })}>
            <option value="">Any</option>
            <option value="active">Active</option>
            <option value="paused">Paused</option>
          </select>
        </Field>
        <Field label="Subscription">
          <select name="subscription" value={filters.subscription_id} onChange={(event) => setFilter({ subscription_id: event.currentTarget.value })}>
            <option value="">Any</option>
            {(subscriptions ?? []).map((subscription) => (
              <option key={subscription.subscription_id} value={subscription.subscription_id}>
                {subscription.name}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Trials">
          <select name="trials" value={trialTags.has(filters.tag) ? filters.tag : ''} onChange={(event) => setFilter({ tag: event.currentTarget.value })}>
            <option value="">Any license</option>
            <option value="trial">Running trials</option>
            <option value="trial-converted">Bought trials</option>
          </select>
        </Field>
        <form
          onSubmit={(event) => {
            event.preventDefault();
            setFilter({ tag: new FormData(event.currentTarget).get('tag')?.toString() ?? '' });
          }}
        >
          <Field label="Tag">
            <input name="tag" defaultValue={filters.tag} key={filters.tag} placeholder="Press Enter" />
          </Field>
        </form>
        <Field label="Expiry">
          <select name="expiry" value={filters.expiry} onChange={(event) => setFilter({ expiry: event.currentTarget.value as Filters['expiry'] })}>
            <option value="">Any</option>
            <option value="expired">Expired</option>
            <option value="unused">Never used</option>
            <option value="expiring">Expiring within…</option>
          </select>
        </Field>
        {filters.expiry === 'expiring' && (
          <Field label="Days">
            <input name="days" type="number" min={1} max={3650} value={filters.days} onChange={(event) => setFilter({ days: event.currentTarget.value }, { replace: true })} />
          </Field>
        )}
        <Field label="Sort">
          <select name="sort" value={filters.sort} onChange={(event) => setFilter({ sort: event.currentTarget.value as Filters['sort'] })}>
            <option value="">Newest first</option>
            <option value="oldest">Oldest first</option>
            <option value="expiry">Expiring soonest (used licenses)</option>
            <option value="expiry-last">Expiring last (used licenses)</option>
          </select>
        </Field>
      </div>
      <AllMatches
        body={body}
        onDone={(text) => {
          setNotice(text);
          void load();
        }}
      />
      {selected.size > 0 && (
        <BulkBar
          count={selected.size}
          busy={busy}
          onAction={bulk}
          onDelete={() =>
            setConfirm({
              title: `Delete ${plural(selected.size, 'license')}?`,
              text: 'Deleted licenses stop working at once and cannot be restored.',
              action: `Delete ${plural(selected.size, 'license')}`,
              onConfirm: () => void bulk('/license/delete-bulk', {}, 'Deleted'),
            })
          }
        />
      )}
      <Notice text={notice} />
      <ErrorNote error={error} />
      <TableWrap>
        <table class="licenses">
          <thead>
            <tr>
              <th scope="col">
                <input
                  type="checkbox"
                  aria-label="Select all on this page"
                  checked={allSelected}
                  onChange={() => setSelected(allSelected ? new Set() : new Set(licenses.map((license) => license.key)))}
                />
              </th>
              <th scope="col">Key</th>
              <th scope="col">Status</th>
              <th scope="col">Subscription</th>
              <th scope="col">Expires</th>
              <th scope="col">HWID</th>
              <th scope="col">Tags</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {licenses.map((license) => (
              <tr key={license.key}>
                <td>
                  <input type="checkbox" aria-label={`Select ${license.key}`} checked={selected.has(license.key)} onChange={() => toggle(license.key)} />
                </td>
                <td>
                  <a href={href(paths.license(app.app_id, license.key))}>
                    <code>{license.key}</code>
                  </a>
                </td>
                <td>
                  <span class={`badge ${license.status}`}>{license.status}</span>
                </td>
                <td>{license.subscription_name}</td>
                <td>{license.expires_at ? <Time iso={license.expires_at} /> : `unused, ${duration(license.initial_duration)}`}</td>
                <td>{license.hwid ?? '—'}</td>
                <td>
                  <Tags tags={license.tags} />
                </td>
                <td>
                  <Time iso={license.created_at} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
      {page && licenses.length === 0 && <p class="hint">No licenses match.</p>}
      <Pager cursors={cursors} next={page?.next} busy={busy} onChange={setCursors} numbered />
      <ConfirmDialog request={confirm} onClose={() => setConfirm(null)} />
    </section>
  );
}

/** Longest extension the bulk bar offers: 100 years, well inside what the API takes. */
const maxExtendDays = 36500;

function BulkBar({ count, busy, onAction, onDelete }: { count: number; busy: boolean; onAction: <P extends BulkPath>(path: P, extra: Omit<Body<P>, 'license_keys'>, done: string) => unknown; onDelete: () => void }) {
  const [daysText, setDaysText] = useState('30');
  const days = wholeNumber(daysText, 1, maxExtendDays);
  return (
    <div class="bulk row" role="region" aria-label="Bulk actions">
      <strong>{plural(count, 'license')} selected</strong>
      <Can path="/license/update-status-bulk"><button type="button" disabled={busy} onClick={() => onAction('/license/update-status-bulk', { status: 'paused' }, 'Paused')}>
        Pause
      </button></Can>
      <Can path="/license/update-status-bulk"><button type="button" disabled={busy} onClick={() => onAction('/license/update-status-bulk', { status: 'active' }, 'Activated')}>
        Activate
      </button></Can>
      <Can path="/hwid/toggle-lock-bulk"><button type="button" disabled={busy} onClick={() => onAction('/hwid/toggle-lock-bulk', { hwid_lock: true }, 'HWID lock on')}>
        Lock HWID
      </button></Can>
      <Can path="/hwid/toggle-lock-bulk"><button type="button" disabled={busy} onClick={() => onAction('/hwid/toggle-lock-bulk', { hwid_lock: false }, 'HWID lock off')}>
        Unlock HWID
      </button></Can>
      <span class="row">
        <input type="number" min={1} max={maxExtendDays} step={1} aria-label="Days to extend by" value={daysText} onInput={(event) => setDaysText(event.currentTarget.value)} />
        <Can path="/license/extend-bulk"><button
          type="button"
          disabled={busy || days === undefined}
          title={days === undefined ? `A whole number of days from 1 to ${maxExtendDays.toLocaleString('en')}` : undefined}
          onClick={() => days !== undefined && onAction('/license/extend-bulk', { extend_seconds: days * 86400, request_id: crypto.randomUUID() }, `Extended by ${plural(days, 'day')}`)}
        >
          Extend (days)
        </button></Can>
      </span>
      <Can path="/license/delete-bulk"><button type="button" class="danger" disabled={busy} onClick={onDelete}>
        Delete…
      </button></Can>
    </div>
  );
}

function CreateLicenses({ app, subscriptions, onDone }: { app: App; subscriptions: Subscription[]; onDone: () => void }) {
  const [created, setCreated] = useState<License[] | null>(null);
  const { busy, error, run, setError } = useAction();

  const submit = (form: HTMLFormElement) => {
    const data = new FormData(form);
    const amount = wholeNumber(data.get('amount'), 1, 1000);
    if (amount === undefined) return setError(new Error('Create from 1 to 1,000 licenses at a time.'));
    const read = readDuration(data, 'duration_value', 'duration_unit');
    if ('problem' in read) return setError(new Error(read.problem));
    const email = String(data.get('email') ?? '').trim();
    const tags = String(data.get('tags') ?? '')
      .split(',')
      .map((tag) => tag.trim())
      .filter(Boolean);
    const common = {
      app_id: app.app_id,
      subscription_id: String(data.get('subscription_id')),
      duration_unit: String(data.get('duration_unit')) as Body<'/license/create'>['duration_unit'],
      duration_value: Number(data.get('duration_value')),
      hwid_lock: data.get('hwid_lock') === 'on',
      tags,
      ...(email ? { email } : {}),
    };
    const customKey = String(data.get('license_key') ?? '').trim();
    void run(async () => {
      const licenses =
        amount === 1
          ? [(await call('/license/create', { ...common, ...(customKey ? { license_key: customKey } : {}) })).data]
          : (await call('/license/create-bulk', { ...common, key_amount: amount })).data;
      setCreated(licenses);
    });
  };

  if (created) {
    const rows = [['key', 'subscription', 'duration_seconds', 'tags'], ...created.map((license) => [license.key, license.subscription_name ?? '', String(license.initial_duration), license.tags.join(' ')])];
    return (
      <section aria-labelledby="created-title">
        <h1 id="created-title">{plural(created.length, 'new license')}</h1>
        <div class="row">
          <button type="button" onClick={() => download(`licenses-${new Date().toISOString().slice(0, 19)}.csv`, csv(rows), 'text/csv')}>
            Download CSV
          </button>
          <button type="button" onClick={onDone}>
            Back to licenses
          </button>
        </div>
        <ul class="keys">
          {created.map((license) => (
            <li key={license.key}>
              <code>{license.key}</code>
            </li>
          ))}
        </ul>
      </section>
    );
  }

  return (
    <section aria-labelledby="create-title">
      <h1 id="create-title">Create licenses</h1>
      <form
        class="stack"
        onSubmit={(event) => {
          event.preventDefault();
          submit(event.currentTarget);
        }}
      >
        <Field label="Subscription">
          <select name="subscription_id" required>
            {subscriptions.map((subscription) => (
              <option key={subscription.subscription_id} value={subscription.subscription_id}>
                {subscription.name} (level {subscription.level})
              </option>
            ))}
          </select>
        </Field>
        <div class="row">
          <DurationFields label="Duration" valueName="duration_value" unitName="duration_unit" />
          <Field label="How many">
            <input name="amount" type="number" min={1} max={1000} required defaultValue="1" />
          </Field>
        </div>
        <Field label="Tags (comma separated)">
          <input name="tags" />
        </Field>
        <Field label="Custom key (only when creating one)">
          <input name="license_key" autocomplete="off" />
        </Field>
        <Field label="Customer email (optional)">
          <input name="email" type="email" maxLength={254} autocomplete="off" />
        </Field>
        <label class="check">
          <input name="hwid_lock" type="checkbox" /> Lock to the first device (HWID)
        </label>
        <div class="row">
          <button type="submit" disabled={busy}>
            Create
          </button>
          <button type="button" class="quiet" onClick={onDone}>
            Cancel
          </button>
        </div>
      </form>
      <ErrorNote error={error} />
    </section>
  );
}
