import { Can } from './access';
import { useState } from 'preact/hooks';
import { call, type App } from './api';
import { ConfirmDialog, copyText, ErrorNote, Field, Notice, useAction, type ConfirmRequest } from './ui';

/** The app_id, which every client program sends, with a button that copies it. */
export function AppId({ app }: { app: App }) {
  const [notice, setNotice] = useState('');
  const { error, setError } = useAction();
  return (
    <div class="app-id">
      <span class="hint">App ID</span> <code data-field="app_id">{app.app_id}</code>{' '}
      <button type="button" aria-label={`Copy app ID of ${app.name}`} onClick={() => void copyText(app.app_id, 'App ID', 'app ID', { notice: setNotice, error: setError })}>
        Copy app ID
      </button>
      <Notice text={notice} />
      <ErrorNote error={error} />
    </div>
  );
}

/**
 * A new application from its name. The form keeps one request_id until the
 * application is made, so a create sent again after a lost answer (by the
 * client's retry or a second click) answers the same application.
 */
export function CreateApp({ onCreated }: { onCreated: (app: App) => void }) {
  const [requestId, setRequestId] = useState(() => crypto.randomUUID());
  const { busy, error, run } = useAction();
  return (
    <Can path="/app/create"><form
      class="card stack"
      aria-label="Create an application"
      onSubmit={(event) => {
        event.preventDefault();
        const form = event.currentTarget;
        const name = String(new FormData(form).get('name') ?? '').trim();
        void run(async () => {
          const { signing_key: _key, ...app } = (await call('/app/create', { name, request_id: requestId })).data;
          setRequestId(crypto.randomUUID());
          form.reset();
          onCreated(app);
        });
      }}
    >
      <h2>Create an application</h2>
      <p class="hint">Each application has its own licenses, subscriptions, blacklists, signing key and app ID.</p>
      <Field label="Name">
        <input name="name" required maxLength={100} autocomplete="off" />
      </Field>
      <button type="submit" disabled={busy}>
        Create application
      </button>
      <ErrorNote error={error} />
    </form></Can>
  );
}

/** Rename, pause and resume the application (settings screen). */
export function AppAdmin({ app, onChanged }: { app: App; onChanged: (app: App) => void }) {
  const [notice, setNotice] = useState('');
  const [confirm, setConfirm] = useState<ConfirmRequest | null>(null);
  const { busy, error, run } = useAction();
  const update = (change: { name?: string; status?: App['status'] }, done: (app: App) => string) =>
    run(async () => {
      const updated = (await call('/app/update', { app_id: app.app_id, ...change })).data;
      setNotice(done(updated));
      onChanged(updated);
    });
  const active = app.status === 'active';
  return (
    <div class="card wide" role="region" aria-label="Application">
      <h2>Application</h2>
      <AppId app={app} />
      <Can path="/app/update">
      <form
        class="row"
        aria-label="Rename the application"
        onSubmit={(event) => {
          event.preventDefault();
          const name = String(new FormData(event.currentTarget).get('name') ?? '').trim();
          void update({ name }, (updated) => `Renamed to “${updated.name}”.`);
        }}
      >
        <Field label="Name">
          <input name="name" required maxLength={100} defaultValue={app.name} key={app.name} autocomplete="off" />
        </Field>
        <button type="submit" disabled={busy}>
          Rename
        </button>
      </form>
      </Can>
      <p>
        Status: <span class={`badge ${app.status}`}>{active ? 'active' : 'paused (inactive)'}</span>
      </p>
      <Can path="/app/update">
      <div class="row">
        {active ? (
          <button
            type="button"
            class="danger"
            disabled={busy}
            onClick={() =>
              setConfirm({
                title: `Pause ${app.name}?`,
                text: 'While paused, every /auth of its licenses answers APPLICATION_NOT_ACTIVE: no program using this application can sign in. Licenses, settings and the management API stay as they are; resume to let clients in again.',
                action: 'Pause application',
                onConfirm: () => void update({ status: 'inactive' }, () => 'Application paused: its clients are refused until you resume it.'),
              })
            }
          >
            Pause application
          </button>
        ) : (
          <button type="button" disabled={busy} onClick={() => void update({ status: 'active' }, () => 'Application resumed: its clients can sign in again.')}>
            Resume application
          </button>
        )}
      </div>
      </Can>
      <Notice text={notice} />
      <ErrorNote error={error} />
      <ConfirmDialog request={confirm} onClose={() => setConfirm(null)} />
    </div>
  );
}

/** The confirmation of a rotation: what happens to programs that hold the old public key. */
export function rotationRequest(app: App, onConfirm: () => void): ConfirmRequest {
  return {
    title: `Rotate the signing key of ${app.name}?`,
    text: 'A new key pair replaces the current one at once and the old private key is destroyed. From now on answers and offline tokens are signed with the new key only: programs that pin the old public key will reject them until you ship the new public key to them. Offline tokens already issued stay signed with the old key. This cannot be undone.',
    action: 'Rotate signing key',
    onConfirm,
  };
}
