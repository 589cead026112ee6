import { effectsOf, publicImage, type StreamChange } from '../../functions/events/derive';

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
      { pk: 'APP#app-1', sk: 'APP' },
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
