import type { License } from '#data/model/license';
import { createFakeClock } from '../support/clock';
import { meterDynamo } from '../../local/ddb-meter';
import { bearer, licensesOf, portalOwner, signedInToken, withPortalServer } from '../support/portal';
import type { Owner } from '../support/owners';

/** `POST /portal/release-device` (docs/portal.md#what-customers-see): /reset-hwid's reset, asked for by the customer. */
const clock = createFakeClock(new Date('2026-06-01T10:00:00.000Z'));
const { env, events } = withPortalServer(clock);

const resettable = { hwid: 'desk-pc', hwids: ['desk-pc', 'laptop'], max_devices: 2, hwid_lock: true, hwid_reset_allowed: true, hwid_reset_interval: 3600, last_hwid_reset_at: null };

const release = (token: string, license_key: string, hwid: string) => env.post('/portal/release-device', { license_key, hwid }, bearer(token));

async function signedInWith(email: string, overrides: Partial<License> = resettable, portal: Record<string, unknown> = {}): Promise<{ owner: Owner; license: License; token: string }> {
  const owner = await portalOwner(env, portal);
  const [license] = await licensesOf(env, events, owner, email, 1, overrides);
  return { owner, license: license!, token: await signedInToken(env, owner, email) };
}

const devicesOf = async (token: string) => (await env.post('/portal/licenses', {}, bearer(token))).body.data[0].devices.map((device: { hwid: string }) => device.hwid);

describe('a customer releasing a device', () => {
  it('frees the device under the license\'s reset rules, announced as the customer', async () => {
    const { owner, license, token } = await signedInWith('ann@example.com');
    await events.drain();
    const seen = events.delivered.length;

    const released = await release(token, license.key, 'laptop');
    expect(released.status).toBe(200);
    expect(released.body).toEqual({ success: true });
    expect(await devicesOf(token)).toEqual(['desk-pc']);

    await events.drain();
    const [reset, ...rest] = events.delivered.slice(seen);
    expect(rest).toEqual([]);
    expect(reset).toMatchObject({ type: 'license.hwid_reset', app_id: owner.app_id, actor: expect.stringMatching(/^customer:[0-9a-f]{16}$/) });
    const audited = await env.post('/audit/get-bulk', { app_id: owner.app_id, type: 'license.hwid_reset' }, owner.auth);
    expect(audited.body.data).toMatchObject([{ id: reset!.id, actor: reset!.actor }]);

    // The interval holds for the customer as for the program: the next release waits.
    const early = await release(token, license.key, 'desk-pc');
    expect(early.status).toBe(403);
    expect(early.body).toMatchObject({ error_code: 'HWID_RESET_COOLDOWN', data: { next_reset_at: '2026-06-01T11:00:00.000Z' } });
    expect(await devicesOf(token)).toEqual(['desk-pc']);
  });

  it('reads the license asked for, not the customer\'s others: a customer of 30 licenses costs what a customer of one costs', async () => {
    const one = await signedInWith('one@example.com');
    const owner = await portalOwner(env);
    const many = await licensesOf(env, events, owner, 'many@example.com', 30, resettable);
    const manyToken = await signedInToken(env, owner, 'many@example.com');
    const meter = meterDynamo(env.client);
    const cost = async (token: string, key: string) => {
      meter.reset();
      expect((await release(token, key, 'no-such-pc')).body).toMatchObject({ error_code: 'HWID_NOT_BOUND' });
      return { requests: meter.counts(), readUnits: meter.readUnits() };
    };

    expect(await cost(manyToken, many[17]!.key)).toEqual(await cost(one.token, one.license.key));
  });

  it('answers /reset-hwid\'s codes: a device not bound, resets not allowed', async () => {
    const { license, token } = await signedInWith('bob@example.com');
    expect((await release(token, license.key, 'no-such-pc')).body).toMatchObject({ error_code: 'HWID_NOT_BOUND' });
    const locked = await signedInWith('cy@example.com', { ...resettable, hwid_reset_allowed: false });
    const refused = await release(locked.token, locked.license.key, 'laptop');
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: expect.any(String), error_code: 'HWID_RESET_NOT_ALLOWED' });
  });

  it('releases a floating seat even while it is borrowed', async () => {
    const borrowedUntil = new Date(clock.now().getTime() + 86_400_000).toISOString();
    const floating = { ...resettable, lease_seconds: 3600, leases: { laptop: { expires_at: borrowedUntil, borrowed: true }, 'desk-pc': { expires_at: borrowedUntil, borrowed: false } } };
    const { license, token } = await signedInWith('dee@example.com', floating as Partial<License>);
    expect((await release(token, license.key, 'laptop')).status).toBe(200);
    expect(await devicesOf(token)).toEqual(['desk-pc']);
  });

  it('is refused when the owner switched releases off, and reaches no other key', async () => {
    const off = await signedInWith('eve@example.com', resettable, { allow_device_release: false });
    const refused = await release(off.token, off.license.key, 'laptop');
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: expect.any(String), error_code: 'NOT_ALLOWED' });

    const { license: someoneElses } = await signedInWith('fay@example.com');
    const { token } = await signedInWith('gus@example.com');
    const unreachable = await release(token, someoneElses.key, 'laptop');
    expect(unreachable.status).toBe(404);
    expect(unreachable.body).toEqual({ error: 'License not found', error_code: 'LICENSE_NOT_FOUND' });
  });
});
