import { startTestEvents, type TestEvents } from '../support/events';
import { withOwner } from '../support/owners';
import * as apps from '#data/app.repo';

/** The `portal` setting of /app/settings (docs/portal.md#switching-it-on). */
const { env, owner } = withOwner();
let events: TestEvents;
beforeAll(async () => {
  events = await startTestEvents(env);
});
afterAll(() => events.stop());

const settings = (body: Record<string, unknown>) => env.post('/app/settings', { app_id: owner.app_id, ...body }, owner.auth);
const off = { enabled: false, allow_device_release: true, allow_license_files: true };

/** Runs `act` as a deployment without an email sender (on AWS: no sesIdentity). */
async function withoutSender<T>(act: () => Promise<T>): Promise<T> {
  const mailer = env.deps.mailer;
  env.deps.mailer = undefined;
  try {
    return await act();
  } finally {
    env.deps.mailer = mailer;
  }
}

describe('the portal setting', () => {
  it('is off until set, takes its defaults, and is answered as stored', async () => {
    expect((await settings({})).body.data.portal).toEqual(off);
    const on = await settings({ portal: { enabled: true, sender_name: '  Acme Tools ', support_url: 'https://acme.example/help' } });
    expect([on.status, on.body.data.portal]).toEqual([200, { enabled: true, sender_name: 'Acme Tools', support_url: 'https://acme.example/help', allow_device_release: true, allow_license_files: true }]);
    expect((await settings({ offline_token_ttl: 3600 })).body.data.portal).toMatchObject({ enabled: true, sender_name: 'Acme Tools' });
    const narrowed = await settings({ portal: { enabled: true, allow_device_release: false, allow_license_files: false } });
    expect(narrowed.body.data.portal).toEqual({ enabled: true, allow_device_release: false, allow_license_files: false });
    expect((await apps.get(env.deps.table, owner.app_id))!.portal).toEqual({ enabled: true, allow_device_release: false, allow_license_files: false });
    expect((await settings({ portal: {} })).body.data.portal).toEqual(off);
  });

  it.each([
    [{ enabled: 'yes' }, 'portal.enabled'],
    [{ sender_name: '' }, 'portal.sender_name'],
    [{ sender_name: 'x'.repeat(65) }, 'portal.sender_name'],
    [{ sender_name: 'Acme\r\nBcc: someone@example.com' }, 'portal.sender_name'],
    [{ support_url: 'http://acme.example/help' }, 'portal.support_url'],
    [{ support_url: 'javascript:alert(1)' }, 'portal.support_url'],
    [{ support_url: 'not a url' }, 'portal.support_url'],
    [{ allow_device_release: 1 }, 'portal.allow_device_release'],
    [{ allow_refunds: true }, 'portal'],
  ])('refuses %j with 400 INVALID_INPUT naming %s, and changes nothing', async (portal, field) => {
    await settings({ portal: {} });
    const answer = await settings({ portal: { enabled: true, ...portal } });
    expect([answer.status, answer.body.error_code]).toEqual([400, 'INVALID_INPUT']);
    expect(answer.body.error).toMatch(new RegExp(`^${field.replace(/\./g, '\\.')}[:.]`));
    expect((await apps.get(env.deps.table, owner.app_id))!.portal).toEqual(off);
  });

  it('cannot be switched on in a deployment that sends no email (409 NO_EMAIL_SENDER, nothing stored), but can be switched off there', async () => {
    await settings({ portal: {} });
    const refused = await withoutSender(() => settings({ portal: { enabled: true }, offline_token_ttl: 120 }));
    expect([refused.status, refused.body]).toEqual([
      409,
      { error: 'This deployment sends no email (the stack setting sesIdentity is not set), so the customer portal cannot be switched on', error_code: 'NO_EMAIL_SENDER' },
    ]);
    const stored = await apps.get(env.deps.table, owner.app_id);
    expect([stored!.portal, stored!.offline_token_ttl]).toEqual([off, 3600]);

    await settings({ portal: { enabled: true } });
    const switchedOff = await withoutSender(() => settings({ portal: { enabled: false } }));
    expect([switchedOff.status, switchedOff.body.data.portal]).toEqual([200, off]);
  });

  it('announces a change as app.settings_changed with the portal before and after', async () => {
    await settings({ portal: {} });
    await events.drain();
    const seen = events.delivered.length;
    await settings({ portal: { enabled: true, sender_name: 'Acme' } });
    await events.drain();
    expect(events.delivered.slice(seen)).toMatchObject([
      { type: 'app.settings_changed', subject: owner.app_id, before: { portal: off }, after: { portal: { ...off, enabled: true, sender_name: 'Acme' } } },
    ]);
  });
});
