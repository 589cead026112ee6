import { Can } from './access';
import { useEffect, useState } from 'preact/hooks';
import { call, type Body, type BulkPath, type App, type License, type Subscription } from './api';
import { LicenseDetail } from './license-detail';
import { href, navigate, paths, useQuery } from './routes';
import { ConfirmDialog, csv, download, DurationFields, ErrorNote, Field, Notice, Pager, duration, shortTime, useAction, type ConfirmRequest } from './ui';

/** The list's filters, kept in the address's query (`#/apps/<app_id>/licenses?status=paused&tag=beta`). */
interface Filters {
  status: '' | 'active' | 'paused';
  subscription_id: string;
  tag: string;
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
  const [subscriptions, setSubscriptions] = useState<Subscription[]>([]);
  const [query, setQuery] = useQuery<keyof Filters>();
  const filters: Filters = { status: query.status === 'active' || query.status === 'paused' ? query.status : '', subscription_id: query.subscription_id ?? '', tag: query.tag ?? '' };
  const filterKey = `${filters.status}|${filters.subscription_id}|${filters.tag}`;
  // Cursors of the pages before this one, so "Previous" can go back without the API keeping state; new filters start at page 1.
  const [paging, setPaging] = useState<{ filterKey: string; cursors: (string | undefined)[] }>({ filterKey, cursors: [undefined] });
  const cursors = paging.filterKey === filterKey ? paging.cursors : [undefined];
  const setCursors = (next: (string | undefined)[]) => setPaging({ filterKey, cursors: next });
  const [page, setPage] = useState<{ licenses: License[]; next: string | null } | null>(null);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [creating, setCreating] = useState(false);
  const [lookup, setLookup] = useState('');
  const [notice, setNotice] = useState('');
  const [confirm, setConfirm] = useState<ConfirmRequest | null>(null);
  const { busy, error, run } = useAction();

  const cursor = cursors[cursors.length - 1];
  const load = () =>
    run(async () => {
      const body = {
        app_id: app.app_id,
        per_page: perPage,
        ...(filters.status ? { status: filters.status } : {}),
        ...(filters.subscription_id ? { subscription_id: filters.subscription_id } : {}),
        ...(filters.tag.trim() ? { tag: filters.tag.trim() } : {}),
        ...(cursor ? { cursor } : {}),
      };
      const listed = await call('/license/get-bulk', body);
      setPage({ licenses: listed.data, next: listed.next_cursor ?? null });
      setSelected(new Set());
    });

  useEffect(() => {
    void run(async () => setSubscriptions((await call('/subscription/get-bulk', { app_id: app.app_id })).data));
  }, [app.app_id]);
  useEffect(() => {
    void load();
  }, [app.app_id, filterKey, paging]);

  const setFilter = (patch: Partial<Filters>) => setQuery(patch);
  const open = (key: string) => navigate(paths.license(app.app_id, key));

  const bulk = async <P extends BulkPath>(path: P, extra: Omit<Body<P>, 'license_keys'>, done: string) => {
    const keys = [...selected];
    const result = await run(() => call(path, { license_keys: keys, ...extra } as Body<P>));
    if (!result) return;
    const { succeeded, failed } = result.data;
    setNotice(`${done}: ${succeeded.length} succeeded${failed.length ? `, ${failed.length} failed (${failed.map((f) => `${f.license_key}: ${f.error_code}`).join('; ')})` : ''}.`);
    await load();
  };

  if (creating) {
    return (
      <CreateLicenses
        app={app}
        subscriptions={subscriptions}
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
        <Can path="/license/create-bulk"><button type="button" onClick={() => setCreating(true)} disabled={subscriptions.length === 0} title={subscriptions.length === 0 ? 'Create a subscription first' : undefined}>
          Create licenses
        </button></Can>
      </div>
      {subscriptions.length === 0 && <p class="hint">Licenses belong to a subscription: create one under Subscriptions first.</p>}
      <form
        class="row"
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          if (lookup.trim()) open(lookup.trim());
        }}
      >
        <Field label="Find by key">
          <input name="lookup" value={lookup} onInput={(event) => setLookup(event.currentTarget.value)} placeholder="License key" />
        </Field>
        <button type="submit">Open</button>
      </form>
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
            {subscriptions.map((subscription) => (
              <option key={subscription.subscription_id} value={subscription.subscription_id}>
                {subscription.name}
              </option>
            ))}
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
      </div>
      {selected.size > 0 && (
        <BulkBar
          count={selected.size}
          busy={busy}
          onAction={bulk}
          onDelete={() =>
            setConfirm({
              title: `Delete ${selected.size} licenses?`,
              text: 'Deleted licenses stop working at once and cannot be restored.',
              action: `Delete ${selected.size} licenses`,
              onConfirm: () => void bulk('/license/delete-bulk', {}, 'Deleted'),
            })
          }
        />
      )}
      <Notice text={notice} />
      <ErrorNote error={error} />
      <div class="table-wrap">
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
                <td>{license.expires_at ? shortTime(license.expires_at) : `unused, ${duration(license.initial_duration)}`}</td>
                <td>{license.hwid ?? '—'}</td>
                <td>{license.tags.join(', ')}</td>
                <td>{shortTime(license.created_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {page && licenses.length === 0 && <p class="hint">No licenses match.</p>}
      <Pager cursors={cursors} next={page?.next} busy={busy} onChange={setCursors} numbered />
      <ConfirmDialog request={confirm} onClose={() => setConfirm(null)} />
    </section>
  );
}

function BulkBar({ count, busy, onAction, onDelete }: { count: number; busy: boolean; onAction: <P extends BulkPath>(path: P, extra: Omit<Body<P>, 'license_keys'>, done: string) => unknown; onDelete: () => void }) {
  const [days, setDays] = useState(30);
  return (
    <div class="bulk row" role="region" aria-label="Bulk actions">
      <strong>{count} selected</strong>
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
        <input type="number" min={1} aria-label="Days to extend by" value={days} onInput={(event) => setDays(Number(event.currentTarget.value))} />
        <Can path="/license/extend-bulk"><button
          type="button"
          disabled={busy || !(days > 0)}
          onClick={() => onAction('/license/extend-bulk', { extend_seconds: Math.round(days * 86400), request_id: crypto.randomUUID() }, `Extended by ${days} days`)}
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
  const { busy, error, run } = useAction();

  const submit = (form: HTMLFormElement) => {
    const data = new FormData(form);
    const amount = Number(data.get('amount'));
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
        <h1 id="created-title">{created.length} new licenses</h1>
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
