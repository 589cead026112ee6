import { render, type ComponentChildren } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { Route, Router, Switch, useLocation } from 'wouter-preact';
import { ApiError, call, loadConfig, session, signInWithLinkCode, type App } from './api';
import { AppId, CreateApp } from './apps';
import { AccessContext, Can, useCan, type KeyAccess } from './access';
import { keyMayCallPath } from '../../functions/access';
import { ApiKeys } from './api-keys';
import { Blacklist } from './blacklist';
import { ConnectionBanner } from './connection';
import { AuditScreen } from './history';
import { LicenseScreen, Licenses } from './licenses';
import { href, navigate, paths, useHashPath, useHashSearch, useTitle } from './routes';
import { Settings } from './settings';
import { StatsView } from './stats';
import { StripeScreen } from './stripe';
import { Subscriptions } from './subscriptions';
import { Webhooks } from './webhooks';
import { ErrorNote, Field, useAction } from './ui';

/**
 * The screens of an application, in tab order: `#/apps/<app_id>/<path>`. A new screen is one line here.
 * `needs`: the route a screen is for, so a key whose role may not call it sees neither tab nor screen.
 * A view gets `changed` to tell the dashboard of a renamed or paused application, and the team's applications.
 */
const screens: { path: string; name: string; needs?: string; view: (app: App, changed: (app: App) => void, apps: App[]) => ComponentChildren }[] = [
  { path: 'licenses', name: 'Licenses', view: (app) => <Licenses app={app} /> },
  { path: 'subscriptions', name: 'Subscriptions', view: (app) => <Subscriptions app={app} /> },
  { path: 'blacklist', name: 'Blacklists', view: (app) => <Blacklist app={app} /> },
  { path: 'webhooks', name: 'Webhooks', view: (app) => <Webhooks app={app} /> },
  { path: 'stats', name: 'Statistics', view: (app) => <StatsView app={app} /> },
  { path: 'audit', name: 'Audit log', view: (app) => <AuditScreen app={app} /> },
  { path: 'stripe', name: 'Stripe', view: (app) => <StripeScreen app={app} /> },
  { path: 'settings', name: 'Signing key & settings', view: (app, changed) => <Settings app={app} onAppChanged={changed} /> },
  { path: 'keys', name: 'API keys', needs: '/apikey/list', view: (_app, _changed, apps) => <ApiKeys apps={apps} /> },
];

function SignIn({ onSignedIn, error }: { onSignedIn: () => void; error: unknown }) {
  const [key, setKey] = useState('');
  useTitle('Sign in');
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

function AppPicker({ apps, opened, onCreated }: { apps: App[]; opened: { current: boolean }; onCreated: (app: App) => void }) {
  useTitle('Applications');
  // A team with one application opens straight on its licenses, once: coming back here later is to create another.
  const only = apps.length === 1 ? apps[0] : undefined;
  useEffect(() => {
    if (only && !opened.current) navigate(paths.screen(only.app_id, 'licenses'), { replace: true });
    opened.current = true;
  }, [only]);
  return (
    <main class="narrow">
      <h1>Applications</h1>
      {apps.length === 0 && <p>This team has no application yet: create one below.</p>}
      <ul class="apps">
        {apps.map((app) => (
          <li key={app.app_id}>
            <a href={href(paths.screen(app.app_id, 'licenses'))}>
              {app.name} <small>{app.status === 'active' ? 'active' : 'paused'}</small>
            </a>
            <AppId app={app} />
          </li>
        ))}
      </ul>
      <Can path="/app/create">
        <CreateApp onCreated={onCreated} />
      </Can>
    </main>
  );
}

/** An application's header with its tabs, around the screen the address names. */
function AppFrame({ app, apps, current, title, generation, onSignOut, children }: { app: App; apps: App[]; current: string; title: string; generation: number; onSignOut: () => void; children: ComponentChildren }) {
  useTitle(title, app.name);
  const can = useCan();
  return (
    <>
      <header>
        <strong>{app.name}</strong>
        <nav aria-label="Sections">
          {screens.filter((screen) => !screen.needs || can(screen.needs)).map((screen) => (
            <a key={screen.path} class="tab" href={href(paths.screen(app.app_id, screen.path))} aria-current={current === screen.path ? 'page' : undefined}>
              {screen.name}
            </a>
          ))}
        </nav>
        <span class="spacer" />
        <a class="tab quiet" href={href(paths.picker())}>
          {apps.length > 1 ? 'Switch application' : 'Applications'}
        </a>
        <button type="button" class="quiet" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      {/* A new generation (the service is back after an outage) mounts the screen afresh, so it loads again. */}
      <main key={generation}>{children}</main>
    </>
  );
}

function NotFound({ text }: { text: string }) {
  useTitle('Not found');
  return (
    <main class="narrow">
      <h1>Not found</h1>
      <p>{text}</p>
      <a href={href(paths.picker())}>Applications</a>
    </main>
  );
}

/**
 * After a move to another address (not on the first screen), focus goes to the new
 * screen's heading, so a screen reader announces it and Tab starts from there. It
 * moves in the commit that draws the screen (a layout effect), so the heading is
 * never shown without it. A screen may draw its heading only once its data has
 * come, or draw it anew: until the owner presses a key or the pointer (or for
 * 10 s), focus left on nothing goes to the heading again.
 */
function useFocusOnNavigation() {
  const [location] = useLocation();
  const first = useRef(true);
  useLayoutEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    const focusHeading = (always: boolean) => {
      const active = document.activeElement;
      if (!always && active && active !== document.body && active.isConnected) return;
      const heading = document.querySelector<HTMLElement>('main h1');
      if (!heading || heading === active) return;
      heading.tabIndex = -1;
      heading.focus();
    };
    focusHeading(true);
    const observer = new MutationObserver(() => focusHeading(false));
    observer.observe(document.body, { childList: true, subtree: true });
    const stop = () => {
      observer.disconnect();
      clearTimeout(timer);
      window.removeEventListener('keydown', stop, true);
      window.removeEventListener('pointerdown', stop, true);
    };
    const timer = setTimeout(stop, 10_000);
    window.addEventListener('keydown', stop, true);
    window.addEventListener('pointerdown', stop, true);
    return stop;
  }, [location]);
}

function Dashboard({ signInProblem }: { signInProblem: Error | undefined }) {
  const [signedIn, setSignedIn] = useState(Boolean(session.key()));
  const [apps, setApps] = useState<App[] | null>(null);
  const [access, setAccess] = useState<KeyAccess | null>(null);
  const [generation, setGeneration] = useState(0);
  const { error, run, setError } = useAction();
  useEffect(() => setError(signInProblem ?? null), [signInProblem]);
  const pickerOpened = useRef(false);
  useFocusOnNavigation();

  useEffect(() => {
    if (!signedIn || apps) return;
    void run(async () => {
      try {
        const [list, current] = await Promise.all([call('/app/list', {}), call('/apikey/current', {})]);
        setAccess({ role: current.data.role, limitedToApps: current.data.apps !== null });
        setApps(list.data);
      } catch (caught) {
        // Only a refused key signs out; an outage leaves the key and the banner's retry loads again.
        if (caught instanceof ApiError && caught.status === 401) {
          session.signOut();
          setSignedIn(false);
        }
        throw caught;
      }
    });
  }, [signedIn, generation]);

  const signOut = () => {
    session.signOut();
    setSignedIn(false);
    setApps(null);
    setAccess(null);
  };

  const banner = <ConnectionBanner onBack={() => setGeneration((value) => value + 1)} />;
  if (!signedIn) return <SignIn onSignedIn={() => setSignedIn(true)} error={error} />;
  if (!apps || !access) {
    return (
      <>
        {banner}
        <p class="loading">Loading applications…</p>
        <ErrorNote error={error} />
      </>
    );
  }
  const changed = (app: App) => setApps(apps.map((candidate) => (candidate.app_id === app.app_id ? app : candidate)));
  const created = (app: App) => {
    setApps([...apps, app]);
    navigate(paths.screen(app.app_id, 'settings'));
  };
  const frame = (appId: string, current: string, title: string, content: (app: App, changed: (app: App) => void) => ComponentChildren) => {
    const app = apps.find((candidate) => candidate.app_id === decodeURIComponent(appId));
    if (!app) return <NotFound text="No application of this team has this id." />;
    return (
      <AppFrame app={app} apps={apps} current={current} title={title} generation={generation} onSignOut={signOut}>
        {content(app, changed)}
      </AppFrame>
    );
  };
  return (
    <AccessContext.Provider value={access}>
      {banner}
      <Switch>
        <Route path="/">{() => <AppPicker apps={apps} opened={pickerOpened} onCreated={created} />}</Route>
        <Route path="/apps/:app/licenses/:key">
          {(params) => {
            const key = decodeURIComponent(params.key);
            return frame(params.app, 'licenses', `License ${key}`, (app) => <LicenseScreen app={app} licenseKey={key} />);
          }}
        </Route>
        <Route path="/apps/:app/:screen">
          {(params) => {
            const screen = screens.find((candidate) => candidate.path === params.screen && (!candidate.needs || keyMayCallPath(access.role, access.limitedToApps, candidate.needs)));
            return screen ? frame(params.app, screen.path, screen.name, (app, changed) => screen.view(app, changed, apps)) : <NotFound text="This address names no screen of the dashboard." />;
          }}
        </Route>
        <Route>{() => <NotFound text="This address names no screen of the dashboard." />}</Route>
      </Switch>
    </AccessContext.Provider>
  );
}

async function start() {
  const signingIn = signInWithLinkCode();
  const root = document.getElementById('app')!;
  try {
    await loadConfig();
  } catch (error) {
    render(<ErrorNote error={error} />, root);
    return;
  }
  const signInProblem = await signingIn;
  root.textContent = '';
  render(
    <Router hook={useHashPath} searchHook={useHashSearch}>
      <Dashboard signInProblem={signInProblem} />
    </Router>,
    root,
  );
}

void start();
