import type { ComponentChildren } from 'preact';
import { Can, CardForm, useCan } from './access';
import { useEffect, useState } from 'preact/hooks';
import { call, type Answer, type App, type Body } from './api';
import { AppAdmin, rotationRequest } from './apps';
import { ConfirmDialog, copyText, Field, duration, shortTime, usePlacedNotice, type ConfirmRequest } from './ui';

type SigningKey = Answer<'/app/signing-key'>['data'];
type AppSettings = Answer<'/app/settings'>['data'];

/** The limits `/app/settings` accepts for offline_token_ttl (functions/client/offline-token.ts). */
const ttlLimits = { min: 60, max: 365 * 86400 };
/** The limits `/app/settings` accepts for max_borrow_seconds (functions/data/model/lease.ts). */
const borrowLimits = { min: 60, max: 365 * 86400 };
/** The limits `/app/settings` accepts for max_license_file_seconds (functions/data/model/license-file.ts). */
const licenseFileLimits = { min: 3600, max: 315_360_000 };
/** The longest reset interval `/app/settings` accepts, as /hwid/update-reset-interval (functions/core/domain/fields.ts). */
const maxResetInterval = 10 * 365 * 86400;

/** The application's signing public key, for programs to pin, and its settings. */
export function Settings({ app, onAppChanged }: { app: App; onAppChanged: (app: App) => void }) {
  const [key, setKey] = useState<SigningKey | null>(null);
  const [settings, setSettings] = useState<AppSettings | null>(null);
  const [confirm, setConfirm] = useState<ConfirmRequest | null>(null);
  const { busy, run, act, say, tell, note } = usePlacedNotice();

  useEffect(() => {
    void run(async () => {
      const [signing, current] = await Promise.all([call('/app/signing-key', { app_id: app.app_id }), call('/app/settings', { app_id: app.app_id })]);
      setKey(signing.data);
      setSettings(current.data);
    });
  }, [app.app_id]);

  const copy = (what: string, text: string) => copyText(text, what, what, { notice: (done) => tell('Signing public key', done), error: (problem) => say('Signing public key', problem) });

  /** Saves settings from the card `at` and says there what they are now. */
  const saveSettings = (at: string, body: Omit<Body<'/app/settings'>, 'app_id'>, done: (saved: AppSettings) => string) =>
    void act(
      at,
      async () => {
        const saved = (await call('/app/settings', { app_id: app.app_id, ...body })).data;
        setSettings(saved);
        return saved;
      },
      done,
    );

  const jwk = key ? JSON.stringify(key.jwk, null, 2) : '';
  return (
    <section aria-labelledby="settings-title">
      <h1 id="settings-title">Signing key &amp; settings</h1>
      <AppAdmin app={app} onChanged={onAppChanged} />
      {note(null)}
      {key && (
        <div class="card wide" role="region" aria-label="Signing public key">
          <h2>Signing public key</h2>
          <p class="hint">
            Client answers and offline tokens are signed with this application's private key ({key.algorithm}); programs verify them with this public key. Created {shortTime(key.created_at)}.
          </p>
          <div class="key-block">
            <span>Key ID</span>
            <div class="row">
              <code data-field="key_id">{key.key_id}</code>
              <button type="button" onClick={() => void copy('Key ID', key.key_id)}>
                Copy key ID
              </button>
            </div>
          </div>
          <div class="key-block">
            <div class="row">
              <span>PEM (SPKI)</span>
              <button type="button" onClick={() => void copy('PEM', key.public_key_pem)}>
                Copy PEM
              </button>
            </div>
            <pre data-field="public_key_pem" tabIndex={0} aria-label="Public key, PEM">{key.public_key_pem}</pre>
          </div>
          <div class="key-block">
            <div class="row">
              <span>JWK</span>
              <button type="button" onClick={() => void copy('JWK', jwk)}>
                Copy JWK
              </button>
            </div>
            <pre data-field="jwk" tabIndex={0} aria-label="Public key, JWK">{jwk}</pre>
          </div>
          <Can path="/app/rotate-signing-key">
          <div class="row">
            <button
              type="button"
              class="danger"
              disabled={busy}
              onClick={() =>
                setConfirm(
                  rotationRequest(app, () =>
                    void act(
                      'Signing public key',
                      async () => {
                        const rotated = (await call('/app/rotate-signing-key', { app_id: app.app_id })).data;
                        setKey(rotated);
                        return rotated;
                      },
                      (rotated) => `Signing key rotated: the new key ID is ${rotated.key_id}. Ship the new public key to your programs.`,
                    ),
                  ),
                )
              }
            >
              Rotate signing key…
            </button>
          </div>
          </Can>
          {note('Signing public key')}
        </div>
      )}
      <ConfirmDialog request={confirm} onClose={() => setConfirm(null)} />
      {settings && (
        <SecondsSetting
          title="Offline tokens"
          text={`Tokens issued from now on are valid for ${duration(settings.offline_token_ttl)}; tokens already issued keep their expiry.`}
          label="Offline token lifetime (seconds)"
          name="offline_token_ttl"
          limits={ttlLimits}
          value={settings.offline_token_ttl}
          submit="Save lifetime"
          busy={busy}
          onSave={(seconds) => saveSettings('Offline tokens', { offline_token_ttl: seconds }, (saved) => `Offline token lifetime set to ${duration(saved.offline_token_ttl)}.`)}
          note={note('Offline tokens')}
        />
      )}
      {settings && (
        <SecondsSetting
          title="Borrowing floating seats"
          text={`A device may borrow a floating seat for offline work for up to ${duration(settings.max_borrow_seconds)}; the seat stays taken until the borrow ends.`}
          label="Longest borrow (seconds)"
          name="max_borrow_seconds"
          limits={borrowLimits}
          value={settings.max_borrow_seconds}
          submit="Save longest borrow"
          busy={busy}
          onSave={(seconds) => saveSettings('Borrowing floating seats', { max_borrow_seconds: seconds }, (saved) => `Longest borrow set to ${duration(saved.max_borrow_seconds)}.`)}
          note={note('Borrowing floating seats')}
        />
      )}
      {settings && <TrialSetting app={app} trial={settings.trial} busy={busy} note={note('Trials')} onSave={(trial, done) => saveSettings('Trials', { trial }, done)} />}
      {settings && <PortalSetting portal={settings.portal} busy={busy} note={note('Customer portal')} onSave={(portal, done) => saveSettings('Customer portal', { portal }, done)} />}
      {settings && (
        <SecondsSetting
          title="License files"
          text={`A license file a device obtains is valid for up to ${duration(settings.max_license_file_seconds)}, never past its license's end; a returned file stays valid until then.`}
          label="Longest license file (seconds)"
          name="max_license_file_seconds"
          limits={licenseFileLimits}
          value={settings.max_license_file_seconds}
          submit="Save longest file"
          busy={busy}
          onSave={(seconds) => saveSettings('License files', { max_license_file_seconds: seconds }, (saved) => `Longest license file set to ${duration(saved.max_license_file_seconds)}.`)}
          note={note('License files')}
        />
      )}
      {settings && (
        <Can path="/app/settings"><form
          class="card stack"
          aria-label="HWID resets of new licenses"
          onSubmit={(event) => {
            event.preventDefault();
            const form = new FormData(event.currentTarget);
            const allowed = form.get('default_hwid_reset_allowed') === 'on';
            const interval = Number(form.get('default_hwid_reset_interval'));
            saveSettings('HWID resets of new licenses', { default_hwid_reset_allowed: allowed, default_hwid_reset_interval: interval }, (saved) =>
              saved.default_hwid_reset_allowed
                ? `New licenses allow a self-service HWID reset every ${duration(saved.default_hwid_reset_interval)}.`
                : 'New licenses allow no self-service HWID reset.',
            );
          }}
        >
          <h2>HWID resets of new licenses</h2>
          <p>
            What a license created from now on gets unless its create request says otherwise; existing licenses keep their own rules (change them on a license's page). Each
            self-service reset lets another machine obtain an offline token valid for {duration(settings.offline_token_ttl)}: an interval at least that long, or resets off,
            keeps one key from serving many machines.
          </p>
          <label class="check">
            <input name="default_hwid_reset_allowed" type="checkbox" defaultChecked={settings.default_hwid_reset_allowed} key={String(settings.default_hwid_reset_allowed)} /> Allow
            self-service HWID resets
          </label>
          <Field label="Seconds between resets">
            <input
              name="default_hwid_reset_interval"
              type="number"
              min={0}
              max={maxResetInterval}
              required
              defaultValue={String(settings.default_hwid_reset_interval)}
              key={settings.default_hwid_reset_interval}
            />
          </Field>
          <button type="submit" disabled={busy}>
            Save reset rules
          </button>
          {note('HWID resets of new licenses')}
        </form></Can>
      )}
    </section>
  );
}

type Trial = AppSettings['trial'];

/** The limits `/app/settings` accepts for a trial (functions/data/model/trial.ts). */
const trialLimits = { minSeconds: 3600, maxSeconds: 90 * 86400, maxDevices: 100, maxPerIpPerDay: 1000 };

/** Trials a program without a key starts for its device (POST /trial): on with a tier and a length, or off. */
function TrialSetting(props: { app: App; trial: Trial; busy: boolean; note: ComponentChildren; onSave: (trial: Trial, done: (saved: AppSettings) => string) => void }) {
  const [tiers, setTiers] = useState<Answer<'/subscription/get-bulk'>['data'] | null>(null);
  const can = useCan()('/app/settings');
  useEffect(() => {
    void call('/subscription/get-bulk', { app_id: props.app.app_id }).then((answer) => setTiers(answer.data));
  }, [props.app.app_id]);
  const { trial } = props;
  const said = (saved: AppSettings) =>
    saved.trial
      ? `Trials on: ${duration(saved.trial.duration_seconds)} on ${tiers?.find((tier) => tier.subscription_id === saved.trial!.subscription_id)?.name ?? 'the chosen subscription'}, at most ${saved.trial.per_ip_per_day} from one address in any 24 hours.`
      : 'Trials off: POST /trial answers TRIALS_DISABLED.';
  return (
    <CardForm
      path="/app/settings"
      class="card stack"
      aria-label="Trials"
      onSubmit={(event) => {
        event.preventDefault();
        const form = new FormData(event.currentTarget);
        const features = String(form.get('features') ?? '')
          .split(',')
          .map((feature) => feature.trim())
          .filter((feature) => feature !== '');
        props.onSave(
          {
            subscription_id: String(form.get('subscription_id')),
            duration_seconds: Number(form.get('duration_seconds')),
            max_devices: Number(form.get('max_devices')),
            per_ip_per_day: Number(form.get('per_ip_per_day')),
            ...(features.length > 0 ? { features } : {}),
          },
          said,
        );
      }}
    >
      <h2>Trials</h2>
      <p>
        {trial
          ? `On: a device without a key gets one trial of ${duration(trial.duration_seconds)}, once, however often it asks. Its license is tagged "trial"; a purchase naming its key converts it in place.`
          : 'Off: a program asking for a trial is refused. Turn them on by choosing the subscription trial licenses get and how long they run.'}
      </p>
      <Field label="Subscription of trial licenses">
        {/* The options come after the select (the tiers are read on their own): each says whether it is the stored one. */}
        <select name="subscription_id" required disabled={!can} key={`${trial?.subscription_id ?? ''} ${tiers?.length ?? 0}`}>
          <option value="" disabled selected={!trial}>
            Choose a subscription
          </option>
          {(tiers ?? []).map((tier) => (
            <option key={tier.subscription_id} value={tier.subscription_id} selected={tier.subscription_id === trial?.subscription_id}>
              {tier.name}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Trial length (seconds, 3600 to 7776000)">
        <input name="duration_seconds" type="number" min={trialLimits.minSeconds} max={trialLimits.maxSeconds} required readOnly={!can} defaultValue={String(trial?.duration_seconds ?? 14 * 86400)} key={trial?.duration_seconds} />
      </Field>
      <Field label="Seats (devices per trial)">
        <input name="max_devices" type="number" min={1} max={trialLimits.maxDevices} required readOnly={!can} defaultValue={String(trial?.max_devices ?? 1)} key={trial?.max_devices} />
      </Field>
      <Field label="Trials one address may start in 24 hours">
        <input name="per_ip_per_day" type="number" min={1} max={trialLimits.maxPerIpPerDay} required readOnly={!can} defaultValue={String(trial?.per_ip_per_day ?? 5)} key={trial?.per_ip_per_day} />
      </Field>
      <Field label="Features of trial licenses (comma-separated, optional)">
        <input name="features" readOnly={!can} defaultValue={(trial?.features ?? []).join(', ')} key={(trial?.features ?? []).join(',')} />
      </Field>
      <Can path="/app/settings">
        <div class="row">
          <button type="submit" disabled={props.busy}>
            {trial ? 'Save trials' : 'Turn trials on'}
          </button>
          {trial && (
            <button type="button" disabled={props.busy} onClick={() => props.onSave(null, said)}>
              Turn trials off
            </button>
          )}
        </div>
      </Can>
      {props.note}
    </CardForm>
  );
}

type Portal = AppSettings['portal'];

/** The customer portal (docs/portal.md): on or off, its sender name and support link, and what customers may do there. */
function PortalSetting(props: { portal: Portal; busy: boolean; note: ComponentChildren; onSave: (portal: Portal, done: (saved: AppSettings) => string) => void }) {
  const can = useCan()('/app/settings');
  const { portal } = props;
  const said = (saved: AppSettings) => (saved.portal.enabled ? 'Customer portal on: customers sign in with a code sent to their email.' : 'Customer portal off: no customer can sign in.');
  /** What the form holds: the whole setting, as /app/settings takes it. */
  const read = (form: FormData, enabled: boolean): Portal => {
    const senderName = String(form.get('sender_name') ?? '').trim();
    const supportUrl = String(form.get('support_url') ?? '').trim();
    return {
      enabled,
      ...(senderName ? { sender_name: senderName } : {}),
      ...(supportUrl ? { support_url: supportUrl } : {}),
      allow_device_release: form.get('allow_device_release') === 'on',
      allow_license_files: form.get('allow_license_files') === 'on',
    };
  };
  const key = JSON.stringify(portal);
  return (
    <CardForm
      path="/app/settings"
      class="card stack"
      aria-label="Customer portal"
      onSubmit={(event) => {
        event.preventDefault();
        props.onSave(read(new FormData(event.currentTarget), true), said);
      }}
    >
      <h2>Customer portal</h2>
      <p>
        {portal.enabled
          ? 'On: the people whose licenses carry their email sign in with a code sent to it, and see their keys, devices and usage.'
          : 'Off: customers cannot sign in. Turning it on needs a deployment that sends email (the stack setting sesIdentity on AWS).'}
      </p>
      <Field label="Sender name (optional)">
        <input name="sender_name" maxLength={64} readOnly={!can} defaultValue={portal.sender_name ?? ''} key={key} />
      </Field>
      <Field label="Support link (https, optional)">
        <input name="support_url" type="url" pattern="https://.*" readOnly={!can} defaultValue={portal.support_url ?? ''} key={key} />
      </Field>
      <label class="check">
        <input name="allow_device_release" type="checkbox" disabled={!can} defaultChecked={portal.allow_device_release} key={key} /> Customers may release a device
      </label>
      <label class="check">
        <input name="allow_license_files" type="checkbox" disabled={!can} defaultChecked={portal.allow_license_files} key={key} /> Customers may get license files
      </label>
      <Can path="/app/settings">
        <div class="row">
          <button type="submit" disabled={props.busy}>
            {portal.enabled ? 'Save portal' : 'Turn portal on'}
          </button>
          {portal.enabled && (
            <button type="button" disabled={props.busy} onClick={(event) => props.onSave(read(new FormData(event.currentTarget.form!), false), said)}>
              Turn portal off
            </button>
          )}
        </div>
      </Can>
      {props.note}
    </CardForm>
  );
}

/** One setting in seconds, its own card and form. */
function SecondsSetting(props: {
  title: string;
  text: string;
  label: string;
  name: string;
  limits: { min: number; max: number };
  value: number;
  submit: string;
  busy: boolean;
  onSave: (seconds: number) => void;
  note: ComponentChildren;
}) {
  return (
    <CardForm
      path="/app/settings"
      class="card stack"
      aria-label={props.title}
      onSubmit={(event) => {
        event.preventDefault();
        props.onSave(Number(new FormData(event.currentTarget).get(props.name)));
      }}
    >
      <h2>{props.title}</h2>
      <p>{props.text}</p>
      <Field label={props.label}>
        <input name={props.name} type="number" min={props.limits.min} max={props.limits.max} required defaultValue={String(props.value)} key={props.value} readOnly={!useCan()('/app/settings')} />
      </Field>
      <Can path="/app/settings">
        <button type="submit" disabled={props.busy}>
          {props.submit}
        </button>
      </Can>
      {props.note}
    </CardForm>
  );
}
