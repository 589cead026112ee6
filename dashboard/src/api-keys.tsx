import { useEffect, useState } from 'preact/hooks';
import { call, type App } from './api';
import { roles, type Role } from '../../functions/shared/roles';
import { ConfirmDialog, copyText, ErrorNote, Field, Notice, TableWrap, useAction, type ConfirmRequest } from './ui';

type ApiKey = Awaited<ReturnType<typeof call<'/apikey/list'>>>['data'][number];

const roleWords: Record<Role, string> = {
  read_only: 'Read only: looks things up, changes nothing',
  support: 'Support: reads, and on one license pauses, extends, resets the HWID',
  manager: 'Manager: every license, subscription, blacklist, webhook and Stripe change',
  admin: 'Admin: everything, applications and API keys included',
};

/** The key just made, shown this once, with a button that copies it. */
function NewKey({ apiKey, onDone }: { apiKey: string; onDone: () => void }) {
  const [notice, setNotice] = useState('');
  const { error, setError } = useAction();
  return (
    <div class="card stack" role="region" aria-label="New API key">
      <p>
        <strong>Copy the key now:</strong> it is shown only this once. Only its first characters are kept for the list.
      </p>
      <code data-field="api_key">{apiKey}</code>
      <div class="row">
        <button type="button" onClick={() => void copyText(apiKey, 'API key', 'key', { notice: setNotice, error: setError })}>
          Copy key
        </button>
        <button type="button" class="quiet" onClick={onDone}>
          I have stored it
        </button>
      </div>
      <Notice text={notice} />
      <ErrorNote error={error} />
    </div>
  );
}

function CreateKey({ apps, onCreated }: { apps: App[]; onCreated: (apiKey: string) => void }) {
  const { busy, error, run } = useAction();
  const [limited, setLimited] = useState(false);
  return (
    <form
      class="card stack"
      aria-label="Create an API key"
      onSubmit={(event) => {
        event.preventDefault();
        const form = event.currentTarget;
        const data = new FormData(form);
        const name = String(data.get('name') ?? '').trim();
        const chosen = data.getAll('apps').map(String);
        void run(async () => {
          const made = await call('/apikey/create', {
            role: String(data.get('role')) as Role,
            ...(name ? { name } : {}),
            ...(limited ? { apps: chosen } : {}),
          });
          form.reset();
          setLimited(false);
          onCreated(made.data.api_key);
        });
      }}
    >
      <h2>New API key</h2>
      <Field label="Name">
        <input name="name" maxLength={64} placeholder="Support desk" />
      </Field>
      <Field label="Role">
        <select name="role" required>
          {roles.map((role) => (
            <option key={role} value={role} selected={role === 'read_only'}>
              {roleWords[role]}
            </option>
          ))}
        </select>
      </Field>
      <label>
        <input type="checkbox" checked={limited} onChange={(event) => setLimited(event.currentTarget.checked)} /> Only some applications
      </label>
      {limited && (
        <fieldset>
          <legend>Applications the key may reach</legend>
          {apps.map((app) => (
            <label key={app.app_id}>
              <input type="checkbox" name="apps" value={app.app_id} /> {app.name}
            </label>
          ))}
        </fieldset>
      )}
      <button type="submit" disabled={busy}>
        Create key
      </button>
      <ErrorNote error={error} />
    </form>
  );
}

/** The team's API keys: list, create (the key shown once), revoke after a confirmation. Admin keys only. */
export function ApiKeys({ apps }: { apps: App[] }) {
  const [keys, setKeys] = useState<ApiKey[] | null>(null);
  const [made, setMade] = useState<string | null>(null);
  const [confirm, setConfirm] = useState<ConfirmRequest | null>(null);
  const [notice, setNotice] = useState('');
  const { error, run } = useAction();
  const load = () => run(async () => setKeys((await call('/apikey/list', {})).data));
  useEffect(() => void load(), []);
  const appName = (appId: string) => apps.find((app) => app.app_id === appId)?.name ?? appId;

  const revoke = (key: ApiKey) =>
    setConfirm({
      title: 'Revoke this API key?',
      text: `${key.name ?? key.hint ?? key.key_id} stops working (on AWS within the authorizer cache time, 5 minutes by default). This cannot be undone.`,
      action: 'Revoke key',
      onConfirm: () =>
        void run(async () => {
          await call('/apikey/revoke', { key_id: key.key_id });
          setNotice('Key revoked.');
          await load();
        }),
    });

  return (
    <section class="stack">
      <h1>API keys</h1>
      <p class="hint">Every key belongs to this team. What each role may do: docs/api-keys.md.</p>
      {made && <NewKey apiKey={made} onDone={() => setMade(null)} />}
      <CreateKey
        apps={apps}
        onCreated={(apiKey) => {
          setMade(apiKey);
          setNotice('');
          void load();
        }}
      />
      <Notice text={notice} />
      <ErrorNote error={error} />
      {keys && (
        <TableWrap>
          <table>
            <caption>Keys of this team</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Starts with</th>
                <th scope="col">Role</th>
                <th scope="col">Applications</th>
                <th scope="col">Created</th>
                <th scope="col">Status</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {keys.map((key) => (
                <tr key={key.key_id} data-key-id={key.key_id}>
                  <td>{key.name ?? '—'}</td>
                  <td>
                    <code>{key.hint ? `${key.hint}…` : '—'}</code>
                  </td>
                  <td>{key.role}</td>
                  <td>{key.apps ? key.apps.map(appName).join(', ') : 'All'}</td>
                  <td>
                    <time dateTime={key.created_at} title={key.created_at}>
                      {new Date(key.created_at).toLocaleString()}
                    </time>
                  </td>
                  <td>{key.status}</td>
                  <td>
                    {key.status === 'active' && (
                      <button type="button" class="danger" onClick={() => revoke(key)} aria-label={`Revoke ${key.name ?? key.hint ?? key.key_id}`}>
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      <ConfirmDialog request={confirm} onClose={() => setConfirm(null)} />
    </section>
  );
}
