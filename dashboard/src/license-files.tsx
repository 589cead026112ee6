import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { activateFromRequest, type License } from './api';
import { download, Field, TableWrap, Time } from './ui';

/** The fields of an activation request (`lfr1.` and base64url JSON), or undefined when the text is none. */
export function activationFields(text: string): { app_id?: unknown; license?: unknown; hwid?: unknown } | undefined {
  const match = /^lfr1\.([A-Za-z0-9_-]+)$/.exec(text.trim());
  if (!match?.[1]) return undefined;
  try {
    const json = atob(match[1].replace(/-/g, '+').replace(/_/g, '/'));
    const fields: unknown = JSON.parse(new TextDecoder().decode(Uint8Array.from(json, (char) => char.charCodeAt(0))));
    return typeof fields === 'object' && fields !== null && !Array.isArray(fields) ? fields : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A license's files (docs/licensing-models.md, "License files and air-gapped devices"): the
 * live ones with their device, times and whether an activation request made them, and a form
 * where the owner pastes a customer's activation request to make the file and download it.
 */
export function LicenseFiles({
  license,
  busy,
  act,
  say,
  note,
}: {
  license: License;
  busy: boolean;
  /** Runs the action and shows the license as the API then has it. */
  act: (action: () => Promise<string>) => void;
  say: (problem: string) => void;
  note: ComponentChildren;
}) {
  const [made, setMade] = useState<{ hwid: string; file: string } | null>(null);
  const files = license.files ?? [];
  return (
    <form
      class="card wide"
      aria-label="License files"
      onSubmit={(event) => {
        event.preventDefault();
        const text = String(new FormData(event.currentTarget).get('request') ?? '').trim();
        const fields = activationFields(text);
        if (!fields) return say('That is no activation request: it starts with lfr1. and holds no spaces.');
        if (fields.app_id !== license.app_id || fields.license !== license.key) return say('This activation request is for another license or application.');
        const form = event.currentTarget;
        act(async () => {
          const answer = await activateFromRequest(text);
          form.reset();
          setMade({ hwid: String(fields.hwid), file: answer.license_file });
          return `License file made for ${String(fields.hwid)}: download it and hand it to the customer.`;
        });
      }}
    >
      <h2>License files</h2>
      {files.length === 0 ? (
        <p>No live license files.</p>
      ) : (
        <TableWrap>
          <table aria-label="Live license files">
            <thead>
              <tr>
                <th scope="col">Device</th>
                <th scope="col">Issued</th>
                <th scope="col">Expires</th>
                <th scope="col">Air-gapped</th>
              </tr>
            </thead>
            <tbody>
              {files.map((file) => (
                <tr key={file.jti}>
                  <td>
                    <code>{file.hwid}</code>
                  </td>
                  <td>
                    <Time iso={file.issued_at} />
                  </td>
                  <td>
                    <Time iso={file.expires_at} />
                  </td>
                  <td>{file.air_gapped ? 'yes' : 'no'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      <p>A device that is never online shows an activation request (lfr1.…). Paste it here to activate the device on the customer's behalf.</p>
      <Field label="Activation request">
        <textarea name="request" rows={3} required spellcheck={false} autocomplete="off" />
      </Field>
      <button type="submit" disabled={busy}>
        Make license file
      </button>
      {made && (
        <button type="button" onClick={() => download('license.lic', `${made.file}\n`, 'application/jwt')}>
          Download license.lic for {made.hwid}
        </button>
      )}
      {note}
    </form>
  );
}
