import { render, type ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { loadConfig, portal, store, type Branding, type Session } from './api';
import { ActivationForm, readRequest } from './activate';
import { Licenses } from './licenses';
import { SignIn, takeLinkCode } from './sign-in';
import { ErrorNote } from './ui';

/** The application's branding (`POST /portal/app`), or the service's refusal, shown as sent. */
function useBranding(appId: string | undefined): { branding?: Branding; error?: unknown } {
  const [state, setState] = useState<{ branding?: Branding; error?: unknown }>({});
  useEffect(() => {
    if (!appId) return;
    portal<Branding>('app', { app_id: appId }).then(
      (branding) => setState({ branding }),
      (error: unknown) => setState({ error }),
    );
  }, [appId]);
  return state;
}

function Frame({ branding, session, onSignOut, children }: { branding?: Branding; session?: Session; onSignOut?: () => void; children: ComponentChildren }) {
  useEffect(() => {
    document.title = branding ? `${branding.name}: your licenses` : 'Your licenses';
  }, [branding]);
  return (
    <>
      <header>
        <p class="brand">{branding?.name ?? 'Licenses'}</p>
        {branding?.sender_name && branding.sender_name !== branding.name && <p class="by">by {branding.sender_name}</p>}
        {session && (
          <div class="account">
            <span class="hint">{session.email}</span>
            <button type="button" onClick={onSignOut}>
              Sign out
            </button>
          </div>
        )}
      </header>
      <main>{children}</main>
      {branding?.support_url && /^https?:\/\//.test(branding.support_url) && (
        <footer>
          Need help? <a href={branding.support_url} rel="noopener noreferrer" target="_blank">Contact support</a>
        </footer>
      )}
    </>
  );
}

/** `/activate/#<request>`: a license file for an offline computer, with no sign-in; the request names the license. */
function ActivatePage({ request }: { request: string }) {
  const fields = readRequest(request);
  const { branding } = useBranding(typeof fields?.app_id === 'string' ? fields.app_id : undefined);
  return (
    <Frame branding={branding}>
      <section aria-labelledby="activate-title">
        <h1 id="activate-title">Activate an offline computer</h1>
        <p>Make a license file for the computer whose program showed this activation request, then copy the file to it.</p>
        <ActivationForm initial={request} />
      </section>
    </Frame>
  );
}

function PortalPage({ appId, opened }: { appId: string; opened?: string }) {
  const { branding, error } = useBranding(appId);
  const [session, setSession] = useState(store.session(appId));
  const [ended, setEnded] = useState<unknown>(null);
  const [linkCode, setLinkCode] = useState(opened);
  // The emailed link opened in this very tab changes only the hash: no new page load tells of it.
  useEffect(() => {
    const taken = () => {
      const code = takeLinkCode();
      if (code) setLinkCode(code);
    };
    addEventListener('hashchange', taken);
    return () => removeEventListener('hashchange', taken);
  }, []);
  const signOut = async () => {
    // The session ends on the service before the screen says so; a failure there leaves only a token this tab drops now, which expires within the hour.
    if (session) await portal('sign-out', {}, session.token).catch(() => undefined);
    store.signedOut();
    setSession(undefined);
  };
  if (error) {
    return (
      <Frame>
        <h1>Your licenses</h1>
        <ErrorNote error={error} />
      </Frame>
    );
  }
  if (!branding) {
    return (
      <Frame>
        <p class="loading" role="status">
          Loading…
        </p>
      </Frame>
    );
  }
  return (
    <Frame branding={branding} session={session} onSignOut={signOut}>
      {session ? (
        <Licenses
          branding={branding}
          session={session}
          onSessionEnded={(why) => {
            store.signedOut();
            setSession(undefined);
            setEnded(why);
          }}
        />
      ) : (
        <>
          <ErrorNote error={ended} />
          <SignIn
            key={linkCode}
            appId={appId}
            linkCode={linkCode}
            onSignedIn={(started) => {
              setEnded(null);
              setSession(started);
            }}
          />
        </>
      )}
    </Frame>
  );
}

async function start() {
  const root = document.getElementById('app')!;
  // Preact renders beside what the container holds: the "Loading…" of index.html goes first.
  root.textContent = '';
  const activating = /\/activate\/$/.test(location.pathname);
  const hash = location.hash;
  // Nothing of the hash (a code, or a request holding a license key) stays in the address bar or history.
  const linkCode = activating ? undefined : takeLinkCode();
  if (activating && hash) history.replaceState(null, '', location.pathname + location.search);
  try {
    await loadConfig();
  } catch (error) {
    render(
      <Frame>
        <ErrorNote error={error} />
      </Frame>,
      root,
    );
    return;
  }
  if (activating) {
    render(<ActivatePage request={decodeURIComponent(hash.slice(1))} />, root);
    return;
  }
  const appId = new URLSearchParams(location.search).get('app');
  render(
    appId ? (
      <PortalPage appId={appId} opened={linkCode} />
    ) : (
      <Frame>
        <h1>Your licenses</h1>
        <ErrorNote error={new Error('This address names no application. Open the link from your email or from the program you bought.')} />
      </Frame>
    ),
    root,
  );
}

void start();
