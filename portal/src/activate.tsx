import { useState } from 'preact/hooks';
import { client, portal } from './api';
import { download, ErrorNote, Field, Notice } from './ui';

/** What an activation request says of itself (`lfr1.` + base64url JSON, docs/client-api.md): shown so the customer sees which license and device it is for. */
export interface RequestFields {
  app_id?: unknown;
  license?: unknown;
  hwid?: unknown;
}

const requestForm = /^lfr1\.[A-Za-z0-9_-]+$/;

export function readRequest(text: string): RequestFields | undefined {
  if (!requestForm.test(text)) return undefined;
  try {
    const base64 = text.slice(5).replace(/-/g, '+').replace(/_/g, '/');
    const fields = JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(base64), (char) => char.charCodeAt(0)))) as unknown;
    return fields && typeof fields === 'object' ? (fields as RequestFields) : undefined;
  } catch {
    return undefined;
  }
}

interface Made {
  hwid: string;
  file: string;
}

/**
 * Turns an activation request into a license file to download. Signed in, through the
 * portal's `/portal/license-file` for one of the customer's licenses (`licenseKey`);
 * on the activation page, through the client route `/license-file`, which needs no
 * sign-in: the request itself names the license.
 */
export function ActivationForm({ initial = '', licenseKey, token }: { initial?: string; licenseKey?: string; token?: string }) {
  const [text, setText] = useState(initial);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [made, setMade] = useState<Made | undefined>();
  const fields = readRequest(text.trim());
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(null);
    setMade(undefined);
    const request = text.trim();
    const read = readRequest(request);
    if (!read) {
      setError(new Error('That is no activation request: it starts with lfr1. and holds no spaces.'));
      return;
    }
    setBusy(true);
    try {
      const answer =
        licenseKey && token
          ? await portal<{ license_file: string }>('license-file', { license_key: licenseKey, request }, token)
          : await client<{ license_file: string }>('/license-file', { request });
      setMade({ hwid: String(read.hwid), file: answer.license_file });
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="stack" aria-label="License file" onSubmit={submit}>
      <Field label="Activation request" hint="Your program shows it on the computer that cannot go online: copy it here.">
        <textarea name="request" rows={4} required spellcheck={false} autocomplete="off" value={text} onInput={(event) => setText(event.currentTarget.value)} />
      </Field>
      {fields && typeof fields.hwid === 'string' && (
        <p class="hint">
          For the device <code>{fields.hwid}</code>
          {typeof fields.license === 'string' && (
            <>
              {' '}
              and the license <code>{fields.license}</code>
            </>
          )}
          .
        </p>
      )}
      <button type="submit" disabled={busy}>
        {busy ? 'Making the license file…' : 'Make license file'}
      </button>
      <ErrorNote error={error} />
      {made && (
        <>
          <Notice text={`License file made for ${made.hwid}: download it and copy it to that computer.`} />
          <button type="button" onClick={() => download('license.lic', `${made.file}\n`, 'application/jwt')}>
            Download license.lic
          </button>
        </>
      )}
    </form>
  );
}
