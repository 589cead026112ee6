import { effectsOf, publicImage, type StreamChange } from '../../functions/events/derive';
import { storedLease } from '#data/model/lease';

const license = {
  pk: 'LIC#KEY-1',
  sk: 'LIC',
  gsi1pk: 'APP#app-1#LICS',
  gsi1sk: '2026-03-01T00:00:00.000Z#KEY-1',
  key: 'KEY-1',
  app_id: 'app-1',
  team_id: 'team-1',
  status: 'active',
  created_at: '2026-03-01T00:00:00.000Z',
  expires_at: null,
  initial_duration: 86400,
  first_used_at: null,
  last_login: null,
  hwid: null,
  metadata: {},
  actor: 'api_key:0123abcd',
};

const change = (kind: StreamChange['kind'], oldImage?: Record<string, unknown>, newImage?: Record<string, unknown>): StreamChange => ({
  eventId: 'rec-1',
  sequenceNumber: '100',
  kind,
  at: Date.parse('2026-03-04T10:00:00Z'),
  keys: { pk: (newImage ?? oldImage)!.pk, sk: (newImage ?? oldImage)!.sk },
  oldImage,
  newImage,
});

describe('events of a stream record', () => {
  it('counts a later use as a login on the day of its last_login, and announces nothing', () => {
    const used = { ...license, first_used_at: '2026-03-02T00:00:00.000Z', last_login: '2026-03-02T00:00:00.000Z', actor: 'client' };
    const effects = effectsOf(change('MODIFY', used, { ...used, last_login: '2026-03-04T09:59:59.000Z' }));
    expect(effects).toEqual({ events: [], counts: [{ appId: 'app-1', day: '2026-03-04', counter: 'logins' }] });
  });

  it('reads a first use as the activation, not as an extension, and counts it with its login', () => {
    const now = '2026-03-03T12:00:00.000Z';
    const effects = effectsOf(change('MODIFY', license, { ...license, first_used_at: now, last_login: now, expires_at: '2026-03-04T12:00:00.000Z', actor: 'client' }));
    expect(effects.events.map((event) => [event.type, event.actor])).toEqual([['license.activated', 'client']]);
    expect(effects.counts.map((count) => count.counter)).toEqual(['activated', 'logins']);
  });

  it('announces a trial started by /trial as created, trial_started and activated, and counts its activation', () => {
    const now = '2026-03-03T12:00:00.000Z';
    const trial = { ...license, tags: ['trial'], hwid_lock: true, hwid: 'pc-a', hwids: ['pc-a'], first_used_at: now, last_login: now, expires_at: '2026-03-17T12:00:00.000Z', actor: 'client' };
    const effects = effectsOf(change('INSERT', undefined, trial));
    expect(effects.events.map((event) => event.type)).toEqual(['license.created', 'license.trial_started', 'license.activated']);
    expect(effects.counts.map((count) => [count.counter, count.day])).toEqual([['created', '2026-03-01'], ['activated', '2026-03-03']]);
    // An owner's own license tagged trial is made unused: no trial started.
    expect(effectsOf(change('INSERT', undefined, { ...license, tags: ['trial'] })).events.map((event) => event.type)).toEqual(['license.created']);
  });

  it('announces a trial bought as license.trial_converted, beside what else the purchase changed', () => {
    const trial = { ...license, tags: ['trial'], first_used_at: '2026-03-02T00:00:00.000Z', expires_at: '2026-03-16T00:00:00.000Z', actor: 'client' };
    const bought = { ...trial, tags: ['stripe', 'trial-converted'], expires_at: '2027-03-04T10:00:00.000Z', metadata: { stripe_checkout_session: 'cs_1' }, actor: 'stripe' };
    expect(effectsOf(change('MODIFY', trial, bought)).events.map((event) => [event.type, event.actor])).toEqual([
      ['license.extended', 'stripe'],
      ['license.trial_converted', 'stripe'],
      ['license.metadata_changed', 'stripe'],
    ]);
    // A tag dropped by other means is no purchase.
    expect(effectsOf(change('MODIFY', trial, { ...trial, tags: [] })).events.map((event) => event.type)).toEqual(['license.metadata_changed']);
  });

  describe('on a floating license', () => {
    const lease = (expires_at: string, borrowed = false) => storedLease({ expires_at, borrowed });
    const floating = { ...license, hwid_lock: true, lease_seconds: 60, hwid: 'pc-a', hwids: ['pc-a'], leases: { 'pc-a': lease('2026-03-04T10:00:30.000Z') }, actor: 'client' };
    const typesOf = (before: Record<string, unknown>, after: Record<string, unknown>) => effectsOf(change('MODIFY', before, after)).events.map((event) => event.type);

    it('announces no renewal, only counts its login', () => {
      expect(typesOf(floating, { ...floating, last_login: '2026-03-04T10:00:00.000Z', leases: { 'pc-a': lease('2026-03-04T10:01:00.000Z') } })).toEqual([]);
    });

    it('announces a seat taken beside another as license.seat_taken, not as a bound HWID', () => {
      const after = { ...floating, hwids: ['pc-a', 'pc-b'], leases: { ...floating.leases, 'pc-b': lease('2026-03-04T10:01:00.000Z') } };
      expect(typesOf(floating, after)).toEqual(['license.seat_taken']);
    });

    it('announces a seat taken over an ended lease, which it drops, as taken and released', () => {
      const ended = { ...floating, leases: { 'pc-a': lease('2026-03-04T09:59:00.000Z') } };
      expect(typesOf(ended, { ...floating, hwid: 'pc-b', hwids: ['pc-b'], leases: { 'pc-b': lease('2026-03-04T10:01:00.000Z') } })).toEqual([
        'license.seat_taken',
        'license.seat_released',
      ]);
    });

    it('announces a device taking its own ended lease again as license.seat_taken', () => {
      const ended = { ...floating, leases: { 'pc-a': lease('2026-03-04T09:59:00.000Z') } };
      expect(typesOf(ended, { ...floating, leases: { 'pc-a': lease('2026-03-04T10:01:00.000Z') } })).toEqual(['license.seat_taken']);
    });

    it('announces a release as license.seat_released, not as a reset', () => {
      expect(typesOf(floating, { ...floating, hwid: null, hwids: [], leases: {} })).toEqual(['license.seat_released']);
    });
  });

  describe('license files', () => {
    const bound = { ...license, hwid: 'pc-a', hwids: ['pc-a'], first_used_at: '2026-03-02T00:00:00.000Z', last_login: '2026-03-02T00:00:00.000Z' };
    const now = Date.parse('2026-03-04T10:00:00Z') / 1000;
    const file = (hwid: string, exp: number, airGapped = false) => ({ hwid, iat: now - 60, exp, air_gapped: airGapped });
    const withFile = { ...bound, files: { 'jti-1': file('pc-a', now + 86400, true) } };
    const fileEvents = (before: Record<string, unknown>, after: Record<string, unknown>) =>
      effectsOf(change('MODIFY', before, after)).events.filter((event) => event.type.startsWith('license.file'));

    it('announces a new file with its jti, its device by fingerprint, air_gapped and exp', () => {
      const [issued, ...rest] = fileEvents(bound, { ...withFile, last_login: '2026-03-04T10:00:00.000Z' });
      expect(rest).toEqual([]);
      expect(issued).toMatchObject({ type: 'license.file_issued', subject: 'KEY-1', after: { jti: 'jti-1', hwid: expect.stringMatching(/^[0-9a-f]{8}$/), air_gapped: true, exp: now + 86400 } });
      expect(JSON.stringify(issued!.after)).not.toContain('pc-a');
      expect(effectsOf(change('MODIFY', bound, withFile)).events.map((event) => event.type)).toEqual(['license.file_issued']);
    });

    it('announces a live file gone as returned, with the reset it is', () => {
      const types = effectsOf(change('MODIFY', withFile, { ...bound, hwid: null, hwids: [], files: {}, last_hwid_reset_at: '2026-03-04T10:00:00.000Z' })).events.map((event) => event.type);
      expect(types).toEqual(['license.hwid_reset', 'license.file_returned']);
    });

    it('sees a device\'s earlier file replaced by its next, or an ended file dropped, as no return', () => {
      expect(fileEvents(withFile, { ...bound, files: { 'jti-2': file('pc-a', now + 172800) } }).map((event) => event.type)).toEqual(['license.file_issued']);
      const ended = { ...bound, files: { 'jti-0': file('pc-b', now - 1) } };
      expect(fileEvents(ended, { ...bound, files: { 'jti-3': file('pc-a', now + 3600) } }).map((event) => event.type)).toEqual(['license.file_issued']);
    });
  });

  it('sees a write that only stamped the actor as no change', () => {
    expect(effectsOf(change('MODIFY', license, { ...license, actor: 'api_key:ffffffff' }))).toEqual({ events: [], counts: [] });
  });

  it('gives a deletion the actor that stamped the item before deleting it, and no after', () => {
    const [deleted] = effectsOf(change('REMOVE', { ...license, actor: 'admin' })).events;
    expect(deleted).toMatchObject({ type: 'license.deleted', actor: 'admin', subject: 'KEY-1', id: 'rec-1-0' });
    expect(deleted!.after).toBeUndefined();
  });

  it("ignores the consumer's own items and index items", () => {
    for (const keys of [
      { pk: 'APP#app-1#AUDIT', sk: '2026-03-04T10:00:00.000Z#0#rec-0' },
      { pk: 'APP#app-1#STATS', sk: 'DAY#2026-03-04' },
      { pk: 'STREAM#rec-0', sk: 'STREAM' },
      { pk: 'APP#app-1', sk: 'HWID#device-1' },
    ]) {
      expect(effectsOf(change('INSERT', undefined, { ...keys, app_id: 'app-1' }))).toEqual({ events: [], counts: [] });
    }
  });

  it("drops passwords, hashes, private keys and secrets at the top level, with the table's own attributes", () => {
    const image = publicImage({ ...license, password_hash: '$2a$10$x', signing_private_key: 'k', webhook_secret: 's', ttl: 1 });
    expect(Object.keys(image!).sort()).toEqual(
      ['app_id', 'created_at', 'expires_at', 'first_used_at', 'hwid', 'initial_duration', 'key', 'last_login', 'metadata', 'status', 'team_id'].sort(),
    );
  });
});

describe('events of an application item', () => {
  const signingKey = (keyId: string) => ({ key_id: keyId, public_key: `pub-${keyId}`, private_key_ciphertext: `SECRET-CIPHERTEXT-${keyId}`, created_at: '2026-03-01T00:00:00.000Z' });
  const app = {
    pk: 'APP#app-1',
    sk: 'APP',
    gsi1pk: 'TEAM#team-1#APPS',
    gsi1sk: '2026-03-01T00:00:00.000Z#app-1',
    app_id: 'app-1',
    team_id: 'team-1',
    name: 'My app',
    status: 'active',
    created_at: '2026-03-01T00:00:00.000Z',
    signing_key: signingKey('kid-1'),
    actor: 'admin',
  };
  const view = {
    app_id: 'app-1',
    team_id: 'team-1',
    name: 'My app',
    status: 'active',
    created_at: '2026-03-01T00:00:00.000Z',
    offline_token_ttl: null,
    default_hwid_reset_allowed: null,
    default_hwid_reset_interval: null,
    max_borrow_seconds: null,
    max_license_file_seconds: null,
    trial: null,
    portal: null,
    signing_key_id: 'kid-1',
  };
  const events = (kind: StreamChange['kind'], before?: Record<string, unknown>, after?: Record<string, unknown>) => effectsOf(change(kind, before, after)).events;

  it('announces a new application with its fields, its signing key by id only', () => {
    expect(events('INSERT', undefined, app)).toEqual([
      { id: 'rec-1-0', type: 'app.created', app_id: 'app-1', subject: 'app-1', at: '2026-03-04T10:00:00.000Z', actor: 'admin', after: view },
    ]);
  });

  it('announces a changed setting with the settings before and after, and who changed it', () => {
    const [changed, ...rest] = events('MODIFY', app, { ...app, offline_token_ttl: 3600, actor: 'api_key:0123abcd' });

    expect(rest).toEqual([]);
    expect(changed).toMatchObject({ type: 'app.settings_changed', actor: 'api_key:0123abcd', before: { offline_token_ttl: null }, after: { offline_token_ttl: 3600 } });
  });

  it('announces a change of the reset defaults new licenses get as a settings change, with every setting before and after', () => {
    const [changed] = events('MODIFY', app, { ...app, default_hwid_reset_allowed: false, default_hwid_reset_interval: 86400 });
    expect(changed).toMatchObject({
      type: 'app.settings_changed',
      before: { offline_token_ttl: null, default_hwid_reset_allowed: null, default_hwid_reset_interval: null, max_borrow_seconds: null, max_license_file_seconds: null },
      after: { offline_token_ttl: null, default_hwid_reset_allowed: false, default_hwid_reset_interval: 86400, max_borrow_seconds: null, max_license_file_seconds: null },
    });
  });

  it('announces a rotation with the old and new key ids only, never the encrypted private key', () => {
    const rotated = events('MODIFY', app, { ...app, signing_key: signingKey('kid-2') });

    expect(rotated).toMatchObject([{ type: 'app.signing_key_rotated', before: { key_id: 'kid-1' }, after: { key_id: 'kid-2' } }]);
    expect(JSON.stringify([rotated, events('INSERT', undefined, app), events('MODIFY', app, { ...app, name: 'Renamed' })])).not.toMatch(/SECRET-CIPHERTEXT|private/);
  });

  it('announces a rename or a status change as app.updated with the application before and after', () => {
    expect(events('MODIFY', app, { ...app, status: 'inactive' })).toMatchObject([
      { type: 'app.updated', before: { ...view, status: 'active' }, after: { ...view, status: 'inactive' } },
    ]);
  });

  it('announces nothing for the first key of an application made before signing, or for its listing entry', () => {
    const { signing_key: _none, ...unsigned } = app;

    expect(events('MODIFY', unsigned, app)).toEqual([]);
    expect(events('MODIFY', { ...app, gsi1pk: undefined, gsi1sk: undefined }, app)).toEqual([]);
  });
});

describe('usage events of a license', () => {
  const used = { ...license, first_used_at: '2026-03-02T00:00:00.000Z', actor: 'client' };
  const counter = (fields: Record<string, unknown>) => ({ period_start: '2026-03-04T00:00:00.000Z', used: 3, t1: 'req-1', ...fields });

  it('announces nothing when usage is counted', () => {
    const effects = effectsOf(change('MODIFY', { ...used, 'usage#exports': counter({}) }, { ...used, 'usage#exports': counter({ used: 4, t2: 'req-2' }) }));
    expect(effects).toEqual({ events: [], counts: [] });
  });

  it('announces the first refusal of a period once, when the counter is marked', () => {
    const before = { ...used, 'usage#exports': counter({}) };
    const marked = { ...used, 'usage#exports': counter({ limit_reached_at: '2026-03-04T09:00:00.000Z' }) };
    expect(effectsOf(change('MODIFY', before, marked)).events.map((event) => event.type)).toEqual(['license.usage_limit_reached']);
    expect(effectsOf(change('MODIFY', marked, { ...marked, last_login: '2026-03-04T09:30:00.000Z' })).events).toEqual([]);
  });

  it('announces a reset when counters are removed', () => {
    const effects = effectsOf(change('MODIFY', { ...used, 'usage#exports': counter({}), 'usage#api': counter({}) }, { ...used, actor: 'api_key:0123abcd' }));
    expect(effects.events.map((event) => [event.type, event.subject, event.actor])).toEqual([['license.usage_reset', 'KEY-1', 'api_key:0123abcd']]);
  });

  it('announces new features or usage limits as a settings change, like other settings', () => {
    const effects = effectsOf(change('MODIFY', used, { ...used, features: ['sync'], actor: 'api_key:0123abcd' }));
    expect(effects.events.map((event) => event.type)).toEqual(['license.metadata_changed']);
  });
});
