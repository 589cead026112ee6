import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { call, loadConfig, session, takeKeyFromFragment, type App } from './api';
import { Blacklist } from './blacklist';
import { Licenses } from './licenses';
import { Settings } from './settings';
import { StatsView } from './stats';
import { StripeScreen } from './stripe';
import { Subscriptions } from './subscriptions';
import { Webhooks } from './webhooks';
import { ErrorNote, Field, useAction } from './ui';

type Tab = 'licenses' | 'subscriptions' | 'blacklist' | 'webhooks' | 'stats' | 'stripe' | 'settings';

const tabNames: Record<Tab, string> = {
  licenses: 'Licenses',
  subscriptions: 'Subscriptions',
  blacklist: 'Blacklists',
  webhooks: 'Webhooks',
  stats: 'Statistics',
  stripe: 'Stripe',
  settings: 'Signing key & settings',
};

function SignIn({ onSignedIn, error }: { onSignedIn: () => void; error: unknown }) {
  const [key, setKey] = useState('');
  return (
    <main class="narrow">
      <h1>Licensing dashboard</h1>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          session.signIn(key.trim());
          onSignedIn();
        }}
      >
        <Field label="API key">
          <input name="api_key" type="password" autocomplete="off" required value={key} onInput={(event) => setKey(event.currentTarget.value)} />
        </Field>
        <p class="hint">The key stays in this browser tab (sessionStorage) and is sent only to the management API.</p>
        <button type="submit">Sign in</button>
      </form>
      <ErrorNote error={error} />
    </main>
  );
}

function AppPicker({ apps, onPick }: { apps: App[]; onPick: (app: App) => void }) {
  return (
    <main class="narrow">
      <h1>Applications</h1>
      {apps.length === 0 && <p>This team has no application yet: create one with <code>npm run admin -- app create</code>.</p>}
      <ul class="apps">
        {apps.map((app) => (
          <li key={app.app_id}>
            <button type="button" onClick={() => onPick(app)}>
              {app.name} <small>{app.status}</small>
            </button>
            <code>{app.app_id}</code>
          </li>
        ))}
      </ul>
    </main>
  );
}

function Dashboard() {
  const [signedIn, setSignedIn] = useState(Boolean(session.key()));
  const [apps, setApps] = useState<App[] | null>(null);
  const [app, setApp] = useState<App | null>(null);
  const [tab, setTab] = useState<Tab>('licenses');
  const { error, run } = useAction();

  useEffect(() => {
    if (!signedIn) return;
    void run(async () => {
      try {
        const listed = (await call('/app/list', {})).data;
        setApps(listed);
        // A team with one application opens straight on its licenses.
        if (listed.length === 1 && listed[0]) setApp(listed[0]);
      } catch (caught) {
        session.signOut();
        setSignedIn(false);
        throw caught;
      }
    });
  }, [signedIn]);

  const signOut = () => {
    session.signOut();
    setSignedIn(false);
    setApps(null);
    setApp(null);
  };

  if (!signedIn) return <SignIn onSignedIn={() => setSignedIn(true)} error={error} />;
  if (!apps) return <p class="loading">Loading applications…</p>;
  if (!app) return <AppPicker apps={apps} onPick={setApp} />;
  return (
    <>
      <header>
        <strong>{app.name}</strong>
        <nav aria-label="Sections">
          {(Object.keys(tabNames) as Tab[]).map((name) => (
            <button type="button" key={name} aria-current={tab === name ? 'page' : undefined} onClick={() => setTab(name)}>
              {tabNames[name]}
            </button>
          ))}
        </nav>
        <span class="spacer" />
        {apps.length > 1 && (
          <button type="button" class="quiet" onClick={() => setApp(null)}>
            Switch application
          </button>
        )}
        <button type="button" class="quiet" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main>
        {tab === 'licenses' && <Licenses app={app} />}
        {tab === 'subscriptions' && <Subscriptions app={app} />}
        {tab === 'blacklist' && <Blacklist app={app} />}
        {tab === 'webhooks' && <Webhooks app={app} />}
        {tab === 'stats' && <StatsView app={app} />}
        {tab === 'stripe' && <StripeScreen app={app} />}
        {tab === 'settings' && <Settings app={app} />}
      </main>
    </>
  );
}

async function start() {
  takeKeyFromFragment();
  const root = document.getElementById('app')!;
  try {
    await loadConfig();
  } catch (error) {
    render(<ErrorNote error={error} />, root);
    return;
  }
  root.textContent = '';
  render(<Dashboard />, root);
}

void start();
