import { useEffect, useState } from 'preact/hooks';
import { portal, store, type Session } from './api';
import { ErrorNote, Field, useFocusOnMount } from './ui';

/**
 * The emailed link's code (`#code=123456`): taken out of the address bar and this tab's
 * history before anything else, like a password would be.
 */
export function takeLinkCode(): string | undefined {
  const match = /^#code=(\d{6})$/.exec(location.hash);
  if (location.hash) history.replaceState(null, '', location.pathname + location.search);
  return match?.[1];
}

function EmailStep({ appId, onSent }: { appId: string; onSent: (email: string) => void }) {
  const [email, setEmail] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const input = useFocusOnMount<HTMLInputElement>();
  return (
    <form
      class="stack"
      aria-label="Sign in"
      onSubmit={async (event) => {
        event.preventDefault();
        setBusy(true);
        setError(null);
        try {
          await portal('sign-in', { app_id: appId, email: email.trim() });
          store.codeSent(appId, email.trim());
          onSent(email.trim());
        } catch (caught) {
          setError(caught);
        } finally {
          setBusy(false);
        }
      }}
    >
      <Field label="Email address" hint="The address your licenses were bought with. We email you a code to sign in: no password.">
        <input ref={input} name="email" type="email" autocomplete="email" inputMode="email" required maxLength={254} value={email} onInput={(event) => setEmail(event.currentTarget.value)} />
      </Field>
      <button type="submit" disabled={busy}>
        {busy ? 'Sending…' : 'Email me a code'}
      </button>
      <ErrorNote error={error} />
    </form>
  );
}

function CodeStep({ appId, email, linkCode, onSignedIn, onOtherEmail }: { appId: string; email?: string; linkCode?: string; onSignedIn: (session: Session) => void; onOtherEmail: () => void }) {
  const [address, setAddress] = useState(email ?? '');
  const [code, setCode] = useState(linkCode ?? '');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const first = useFocusOnMount<HTMLInputElement>();
  const verify = async () => {
    setBusy(true);
    setError(null);
    try {
      const answer = await portal<{ token: string; expires_at: string }>('verify', { app_id: appId, email: address.trim(), code: code.trim() });
      const session = { app_id: appId, email: address.trim().toLowerCase(), ...answer };
      store.signedIn(session);
      onSignedIn(session);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  // The emailed link opened in the tab that asked for it holds both: signing in needs no typing.
  useEffect(() => {
    if (email && linkCode) void verify();
  }, []);
  return (
    <form
      class="stack"
      aria-label="Enter your code"
      onSubmit={(event) => {
        event.preventDefault();
        void verify();
      }}
    >
      {email ? (
        <p>
          If <strong>{email}</strong> has licenses here, a 6-digit code is on its way there. It is valid for 10 minutes.
        </p>
      ) : (
        <Field label="Email address" hint="The address the code was sent to.">
          <input ref={first} name="email" type="email" autocomplete="email" inputMode="email" required maxLength={254} value={address} onInput={(event) => setAddress(event.currentTarget.value)} />
        </Field>
      )}
      <Field label="Code">
        <input
          ref={email ? first : undefined}
          name="code"
          class="code"
          inputMode="numeric"
          autocomplete="one-time-code"
          pattern="[0-9]{6}"
          maxLength={6}
          required
          value={code}
          onInput={(event) => setCode(event.currentTarget.value)}
        />
      </Field>
      <button type="submit" disabled={busy}>
        {busy ? 'Signing in…' : 'Sign in'}
      </button>
      <ErrorNote error={error} />
      <button type="button" class="link" onClick={onOtherEmail}>
        Use another email address
      </button>
    </form>
  );
}

/** Sign-in in two steps: the email, then the code it received (typed, or from the emailed link). */
export function SignIn({ appId, linkCode, onSignedIn }: { appId: string; linkCode?: string; onSignedIn: (session: Session) => void }) {
  const [email, setEmail] = useState(store.pendingEmail(appId));
  const [codeStep, setCodeStep] = useState(Boolean(email || linkCode));
  return (
    <section aria-labelledby="sign-in-title">
      <h1 id="sign-in-title">Sign in to see your licenses</h1>
      {codeStep ? (
        <CodeStep
          appId={appId}
          email={email}
          linkCode={linkCode}
          onSignedIn={onSignedIn}
          onOtherEmail={() => {
            store.forgetEmail();
            setEmail(undefined);
            setCodeStep(false);
          }}
        />
      ) : (
        <EmailStep
          appId={appId}
          onSent={(sent) => {
            setEmail(sent);
            setCodeStep(true);
          }}
        />
      )}
    </section>
  );
}
