import { Can } from './access';
import { useEffect, useState } from 'preact/hooks';
import { call, type Body, type ManagementPath, type App, type BlacklistEntry } from './api';
import { ConfirmDialog, Field, Pager, shortTime, TableWrap, usePlacedNotice, type ConfirmRequest } from './ui';

const types = ['country', 'asn', 'ip', 'hwid'] as const;

export function Blacklist({ app }: { app: App }) {
  const [type, setType] = useState<'' | (typeof types)[number]>('');
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [page, setPage] = useState<{ entries: BlacklistEntry[]; next: string | null } | null>(null);
  const [confirm, setConfirm] = useState<ConfirmRequest | null>(null);
  const placed = usePlacedNotice();
  const { busy, run, note } = placed;

  const cursor = cursors[cursors.length - 1];
  const refresh = async () => {
    const listed = await call('/blacklist/get-bulk', { app_id: app.app_id, ...(type ? { type } : {}), ...(cursor ? { cursor } : {}) });
    setPage({ entries: listed.data, next: listed.next_cursor ?? null });
  };
  const load = () => run(refresh);
  useEffect(() => {
    void load();
  }, [app.app_id, type, cursors]);

  /** Runs the action of `at` (the form, or the list for a removal: the entry's row is gone after it), then shows the list as the API now has it. */
  const act = <P extends ManagementPath>(at: string, path: P, body: Omit<Body<P>, 'app_id'>, done: string) =>
    placed.act(
      at,
      async () => {
        await call(path, { app_id: app.app_id, ...body } as Body<P>);
        await refresh();
        return true;
      },
      done,
    );

  return (
    <section aria-labelledby="blacklist-title">
      <h1 id="blacklist-title">Blacklists</h1>
      <Can path="/blacklist/add"><form
        class="row card"
        aria-label="Add to blacklist"
        onSubmit={(event) => {
          event.preventDefault();
          const form = event.currentTarget;
          const data = new FormData(form);
          const reason = String(data.get('reason') ?? '').trim();
          void act('Add to blacklist', '/blacklist/add', { type: String(data.get('type')) as BlacklistEntry['type'], value: String(data.get('value')).trim(), ...(reason ? { reason } : {}) }, 'Added.').then((added) => added && form.reset());
        }}
      >
        <Field label="Type">
          <select name="type">
            {types.map((name) => (
              <option key={name}>{name}</option>
            ))}
          </select>
        </Field>
        <Field label="Value">
          <input name="value" required placeholder="DE, 13335, 203.0.113.7, HWID…" />
        </Field>
        <Field label="Reason">
          <input name="reason" />
        </Field>
        <button type="submit" disabled={busy}>
          Add
        </button>
        {note('Add to blacklist')}
      </form></Can>
      <Field label="Show">
        <select
          value={type}
          onChange={(event) => {
            setType(event.currentTarget.value as typeof type);
            setCursors([undefined]);
          }}
        >
          <option value="">All types</option>
          {types.map((name) => (
            <option key={name}>{name}</option>
          ))}
        </select>
      </Field>
      {note(null)}
      {note('Entries')}
      <TableWrap>
        <table class="stack-on-phone">
          <thead>
            <tr>
              <th scope="col">Type</th>
              <th scope="col">Value</th>
              <th scope="col">Reason</th>
              <th scope="col">Added</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {(page?.entries ?? []).map((entry) => (
              <tr key={`${entry.type}:${entry.value}`}>
                <td data-label="Type">{entry.type}</td>
                <td data-label="Value">
                  <code>{entry.value}</code>
                </td>
                <td data-label="Reason">{entry.reason ?? ''}</td>
                <td data-label="Added">{shortTime(entry.created_at)}</td>
                <td class="actions">
                  <Can path="/blacklist/delete"><button
                    type="button"
                    class="danger"
                    disabled={busy}
                    onClick={() =>
                      setConfirm({
                        title: `Remove ${entry.type} ${entry.value}?`,
                        text: 'Requests matching it are no longer refused.',
                        action: 'Remove entry',
                        onConfirm: () => void act('Entries', '/blacklist/delete', { type: entry.type, value: entry.value }, 'Removed.'),
                      })
                    }
                  >
                    Remove…
                  </button></Can>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
      {page && page.entries.length === 0 && <p class="hint">No entries.</p>}
      <Pager cursors={cursors} next={page?.next} busy={busy} onChange={setCursors} />
      <ConfirmDialog request={confirm} onClose={() => setConfirm(null)} />
    </section>
  );
}
