import { Can } from './access';
import { useEffect, useRef, useState } from 'preact/hooks';
import { call, type App, type Body, type BulkPath, type License } from './api';
import { href, navigate, paths } from './routes';
import { csv, download, ErrorNote, useAction } from './ui';

type Found = { matched: ('key' | 'username' | 'hwid' | 'email')[]; license: License };

const matchedWords = { key: 'key', username: 'username', hwid: 'bound device', email: 'email' } as const;

/** The results of /license/find for the query in the address (`q`): licenses of this app by key, username, bound HWID or customer email. */
export function SearchResults({ app, query, onClear }: { app: App; query: string; onClear: () => void }) {
  const [found, setFound] = useState<{ query: string; matches: Found[] } | null>(null);
  const { error, run } = useAction();
  useEffect(() => {
    void run(async () => {
      const matches = (await call('/license/find', { app_id: app.app_id, query })).data.matches as Found[];
      // A pasted key opens its license at once, as a key lookup always did; Back returns to the list.
      if (matches.length === 1 && matches[0]!.matched.includes('key')) navigate(paths.license(app.app_id, matches[0]!.license.key), { replace: true });
      else setFound({ query, matches });
    });
  }, [app.app_id, query]);
  const matches = found?.query === query ? found.matches : null;
  return (
    <section aria-labelledby="search-title" class="search-results">
      <div class="row">
        <h2 id="search-title">Found for “{query}”</h2>
        <span class="spacer" />
        <button type="button" class="quiet" onClick={onClear}>
          Clear search
        </button>
      </div>
      <ErrorNote error={error} />
      {matches && matches.length === 0 && <p class="hint">No license of this application has that key, username, bound device or email.</p>}
      {matches && matches.length > 0 && (
        <ul class="found">
          {matches.map(({ matched, license }) => (
            <li key={license.key}>
              <a href={href(paths.license(app.app_id, license.key))}>
                <code>{license.key}</code>
              </a>{' '}
              <span class={`badge ${license.status}`}>{license.status}</span> matched by {matched.map((kind) => matchedWords[kind]).join(' and ')}
              {license.username ? `, user ${license.username}` : ''}
              {license.email ? `, ${license.email}` : ''}
              {license.hwid ? `, device ${license.hwid}` : ''}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** What the list shows, as /license/get-bulk takes it (no cursor, no page size). */
export type ListBody = Omit<Body<'/license/get-bulk'>, 'cursor' | 'per_page'>;

interface Progress {
  text: string;
  done: number;
  total?: number;
}

/** Licenses per listing request while collecting every match, and keys per bulk request (the routes' limits). */
const pageSize = 100;
const keysPerRequest = 1000;

/**
 * Acts on every license the current filter matches, not only the visible page:
 * pages through /license/get-bulk collecting them, then sends the bulk route in
 * chunks of 1000 keys, or writes them to a CSV file. The progress shows how far
 * it got; Cancel stops it between two requests (what was sent stays done).
 */
export function AllMatches({ body, onDone }: { body: ListBody; onDone: (notice: string) => void }) {
  const [progress, setProgress] = useState<Progress | null>(null);
  const [days, setDays] = useState(30);
  const cancelled = useRef(false);
  const { busy, error, run } = useAction();

  const collect = async (): Promise<License[] | undefined> => {
    const licenses: License[] = [];
    let cursor: string | null | undefined;
    do {
      const page = await call('/license/get-bulk', { ...body, per_page: pageSize, ...(cursor ? { cursor } : {}) });
      if (cancelled.current) return undefined;
      licenses.push(...page.data);
      cursor = page.next_cursor;
      setProgress({ text: `Reading matches: ${licenses.length} so far`, done: licenses.length });
    } while (cursor);
    return licenses;
  };

  const start = (work: () => Promise<string>) => {
    cancelled.current = false;
    setProgress({ text: 'Reading matches', done: 0 });
    void run(async () => {
      try {
        onDone(await work());
      } finally {
        setProgress(null);
      }
    });
  };

  const apply = <P extends BulkPath>(path: P, extra: Omit<Body<P>, 'license_keys'>, verb: string) =>
    start(async () => {
      const licenses = await collect();
      if (!licenses) return 'Cancelled before any change.';
      let succeeded = 0;
      let failed = 0;
      for (let at = 0; at < licenses.length; at += keysPerRequest) {
        if (cancelled.current) return `Cancelled: ${verb.toLowerCase()} ${succeeded} of ${licenses.length}${failed ? `, ${failed} failed` : ''}.`;
        const keys = licenses.slice(at, at + keysPerRequest).map((license) => license.key);
        const result = (await call(path, { license_keys: keys, ...extra } as Body<P>)).data;
        succeeded += result.succeeded.length;
        failed += result.failed.length;
        setProgress({ text: `${verb} ${succeeded} of ${licenses.length}`, done: succeeded + failed, total: licenses.length });
      }
      return `${verb} ${succeeded} of ${licenses.length} matching ${licenses.length === 1 ? 'license' : 'licenses'}${failed ? `; ${failed} failed` : ''}.`;
    });

  const exportCsv = () =>
    start(async () => {
      const licenses = await collect();
      if (!licenses) return 'Export cancelled.';
      const rows = [
        ['key', 'status', 'subscription', 'created_at', 'expires_at', 'first_used_at', 'hwid', 'username', 'tags'],
        ...licenses.map((license) => [
          license.key,
          license.status,
          license.subscription_name ?? '',
          license.created_at,
          license.expires_at ?? '',
          license.first_used_at ?? '',
          license.hwid ?? '',
          license.username ?? '',
          license.tags.join(' '),
        ]),
      ];
      download(`licenses-${new Date().toISOString().slice(0, 19)}.csv`, csv(rows), 'text/csv');
      return `Exported ${licenses.length} matching ${licenses.length === 1 ? 'license' : 'licenses'}.`;
    });

  return (
    <div class="bulk row" role="region" aria-label="Actions on all matches">
      <strong>All matches of this filter:</strong>
      <button type="button" disabled={busy} onClick={exportCsv}>
        Export CSV
      </button>
      <Can path="/license/update-status-bulk"><button type="button" disabled={busy} onClick={() => apply('/license/update-status-bulk', { status: 'paused' }, 'Paused')}>
        Pause all
      </button></Can>
      <Can path="/license/update-status-bulk"><button type="button" disabled={busy} onClick={() => apply('/license/update-status-bulk', { status: 'active' }, 'Activated')}>
        Activate all
      </button></Can>
      <span class="row">
        <input type="number" min={1} aria-label="Days to extend all matches by" value={days} onInput={(event) => setDays(Number(event.currentTarget.value))} />
        <Can path="/license/extend-bulk"><button
          type="button"
          disabled={busy || !(days > 0)}
          onClick={() => apply('/license/extend-bulk', { extend_seconds: Math.round(days * 86400), request_id: crypto.randomUUID() }, 'Extended')}
        >
          Extend all (days)
        </button></Can>
      </span>
      {progress && (
        <span class="row" role="status">
          <progress max={progress.total ?? undefined} value={progress.total ? progress.done : undefined} aria-label="Progress" />
          <span>{progress.text}</span>
          <button type="button" class="quiet" onClick={() => (cancelled.current = true)}>
            Cancel
          </button>
        </span>
      )}
      <ErrorNote error={error} />
    </div>
  );
}
