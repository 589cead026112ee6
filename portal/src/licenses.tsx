import { useEffect, useState } from 'preact/hooks';
import { portal, ServiceError, type Branding, type Session } from './api';
import { ActivationForm } from './activate';
import { ErrorNote, Notice, Time, useFocusOnMount } from './ui';

interface Counter {
  counter: string;
  used: number;
  limit: number;
  remaining: number;
  period: string;
  resets_at?: string | null;
}

interface Device {
  hwid: string;
  /** A floating seat's lease: until when the device holds it, and whether it was borrowed for offline use. */
  lease: { expires_at: string; borrowed: boolean } | null;
  /** The device's live license files. */
  files: { issued_at: string; expires_at: string; air_gapped: boolean }[];
}

export interface PortalLicense {
  key: string;
  status: string;
  expires_at: string | null;
  subscription_name: string | null;
  features: string[];
  usage: Counter[];
  max_devices: number;
  devices: Device[];
  /** Whether a device may be released now under the license's reset rules, and from when the next may. */
  release: { allowed_now: boolean; next_at: string | null };
  /** Whether the license was bought through the owner's Stripe connection, so /portal/billing opens a billing page for it. */
  billing: boolean;
}

function Release({ license, device, session, onReleased }: { license: PortalLicense; device: Device; session: Session; onReleased: (text: string) => void }) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  if (!license.release.allowed_now) return null;
  if (!asking) {
    return (
      <button type="button" aria-label={`Release ${device.hwid}`} onClick={() => setAsking(true)}>
        Release
      </button>
    );
  }
  return (
    <div class="confirm" role="group" aria-label={`Release ${device.hwid}?`}>
      <p>The program stops working on {device.hwid} and can be activated on another computer.</p>
      <div class="row">
        <button
          type="button"
          class="danger"
          disabled={busy}
          onClick={async () => {
            setBusy(true);
            setError(null);
            try {
              await portal('release-device', { license_key: license.key, hwid: device.hwid }, session.token);
              onReleased(`${device.hwid} was released from ${license.key}.`);
            } catch (caught) {
              setError(caught);
              setBusy(false);
            }
          }}
        >
          Release {device.hwid}
        </button>
        <button type="button" onClick={() => setAsking(false)}>
          Keep it
        </button>
      </div>
      <ErrorNote error={error} />
    </div>
  );
}

function Billing({ license, session }: { license: PortalLicense; session: Session }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  return (
    <>
      <button
        type="button"
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          setError(null);
          try {
            const { url } = await portal<{ url: string }>('billing', { license_key: license.key }, session.token);
            // Only ever on to Stripe's page over https: the answer decides where this tab goes.
            if (!/^https:\/\//.test(url)) throw new Error('The service answered with no billing address. Try again later.');
            location.assign(url);
          } catch (caught) {
            setError(caught);
            setBusy(false);
          }
        }}
      >
        {busy ? 'Opening billing…' : 'Manage billing'}
      </button>
      <ErrorNote error={error} />
    </>
  );
}

function LicenseCard({ license, branding, session, onChanged }: { license: PortalLicense; branding: Branding; session: Session; onChanged: (text: string) => void }) {
  const [filing, setFiling] = useState(false);
  const titleId = `license-${license.key}`;
  return (
    <section class="card" aria-labelledby={titleId}>
      <h2 id={titleId}>
        <code>{license.key}</code>
      </h2>
      <dl class="facts">
        <div>
          <dt>Status</dt>
          <dd>
            <span class={`badge ${license.status}`}>{license.status}</span>
          </dd>
        </div>
        <div>
          <dt>Expires</dt>
          <dd>{license.expires_at ? <Time iso={license.expires_at} /> : 'Counted from first use'}</dd>
        </div>
        <div>
          <dt>Plan</dt>
          <dd>{license.subscription_name ?? '—'}</dd>
        </div>
        <div>
          <dt>Features</dt>
          <dd>{license.features.length > 0 ? license.features.join(', ') : 'None'}</dd>
        </div>
      </dl>
      {license.usage.length > 0 && (
        <>
          <h3>Usage</h3>
          <ul class="usage">
            {license.usage.map((counter) => (
              <li key={counter.counter}>
                <span>
                  {counter.counter}: {counter.used} of {counter.limit}
                  {counter.period === 'none' ? '' : ` this ${counter.period}`}
                  {counter.resets_at && (
                    <small class="hint">
                      {' '}
                      (starts again <Time iso={counter.resets_at} />)
                    </small>
                  )}
                </span>
                <meter min={0} max={counter.limit} value={Math.min(counter.used, counter.limit)} aria-label={`${counter.counter} used`} />
              </li>
            ))}
          </ul>
        </>
      )}
      <h3>
        Devices ({license.devices.length} of {license.max_devices})
      </h3>
      {license.devices.length === 0 ? (
        <p class="hint">No device uses this license now.</p>
      ) : (
        <ul class="devices">
          {license.devices.map((device) => (
            <li key={device.hwid}>
              <div>
                <code>{device.hwid}</code>
                {device.lease && (
                  <small class="hint">
                    {device.lease.borrowed ? 'Borrowed' : 'In use'} until <Time iso={device.lease.expires_at} />
                  </small>
                )}
                {device.files.map((file) => (
                  <small class="hint" key={file.issued_at}>
                    License file{file.air_gapped ? ' (offline activation)' : ''} until <Time iso={file.expires_at} />
                  </small>
                ))}
              </div>
              {branding.allow_device_release && <Release license={license} device={device} session={session} onReleased={onChanged} />}
            </li>
          ))}
        </ul>
      )}
      {branding.allow_device_release && !license.release.allowed_now && license.release.next_at && (
        <p class="hint">
          The next device can be released from <Time iso={license.release.next_at} />.
        </p>
      )}
      <div class="row">
        {branding.allow_license_files && (
          <button type="button" aria-expanded={filing} onClick={() => setFiling(!filing)}>
            License file for an offline computer
          </button>
        )}
        {license.billing && <Billing license={license} session={session} />}
      </div>
      {filing && <ActivationForm licenseKey={license.key} token={session.token} />}
    </section>
  );
}

/** The signed-in customer's licenses of this application, each with its devices and what may be done with them. */
export function Licenses({ branding, session, onSessionEnded }: { branding: Branding; session: Session; onSessionEnded: (error: unknown) => void }) {
  const [licenses, setLicenses] = useState<PortalLicense[] | undefined>();
  const [error, setError] = useState<unknown>(null);
  const [notice, setNotice] = useState('');
  // Signed in: the screen starts at its heading, for keyboards and screen readers alike.
  const heading = useFocusOnMount<HTMLHeadingElement>();
  const load = async () => {
    try {
      setLicenses(await portal<PortalLicense[]>('licenses', {}, session.token));
      setError(null);
    } catch (caught) {
      if (caught instanceof ServiceError && caught.code === 'INVALID_SESSION') onSessionEnded(caught);
      else setError(caught);
    }
  };
  useEffect(() => {
    void load();
  }, [session.token]);
  return (
    <section aria-labelledby="licenses-title">
      <h1 id="licenses-title" ref={heading} tabIndex={-1}>
        Your licenses
      </h1>
      <Notice text={notice} />
      <ErrorNote error={error} />
      {!licenses && !error && (
        <p class="loading" role="status">
          Loading your licenses…
        </p>
      )}
      {licenses?.length === 0 && <p>No license of {branding.name} carries this email address.</p>}
      {licenses?.map((license) => (
        <LicenseCard
          key={license.key}
          license={license}
          branding={branding}
          session={session}
          onChanged={(text) => {
            setNotice(text);
            void load();
          }}
        />
      ))}
    </section>
  );
}
