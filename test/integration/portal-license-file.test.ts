import { decodeJwt } from 'jose';
import type { License } from '#data/model/license';
import { createFakeClock } from '../support/clock';
import { activationRequest, bearer, licensesOf, portalOwner, signedInToken, withPortalServer } from '../support/portal';
import type { Owner } from '../support/owners';

/** `POST /portal/license-file` (docs/portal.md#what-customers-can-do): /license-file's action on an activation request, for the customer. */
const clock = createFakeClock(new Date('2026-06-01T10:00:00.000Z'));
const { env, events } = withPortalServer(clock);

const fileFor = (token: string, license_key: string, request: string) => env.post('/portal/license-file', { license_key, request }, bearer(token));

async function signedInWith(email: string, overrides: Partial<License> = { hwid_lock: true }, portal: Record<string, unknown> = {}): Promise<{ owner: Owner; license: License; token: string }> {
  const owner = await portalOwner(env, portal);
  const [license] = await licensesOf(env, events, owner, email, 1, overrides);
  return { owner, license: license!, token: await signedInToken(env, owner, email) };
}

describe('a customer turning an activation request into a license file', () => {
  it('gets the signed, air-gapped file for the offline computer, bound and recorded on the license, written as the customer', async () => {
    const { owner, license, token } = await signedInWith('ann@example.com');
    await events.drain();
    const seen = events.delivered.length;

    const made = await fileFor(token, license.key, activationRequest({ app_id: owner.app_id, license: license.key, hwid: 'cabin-pc', nonce: 'cabin-nonce-0001' }));
    expect(made.status).toBe(200);
    expect(made.body.success).toBe(true);
    const claims = decodeJwt(made.body.data.license_file);
    expect(claims).toMatchObject({ hwid: 'cabin-pc', nonce: 'cabin-nonce-0001', air_gapped: true });
    const listed = await env.post('/portal/licenses', {}, bearer(token));
    expect(listed.body.data[0].devices).toMatchObject([{ hwid: 'cabin-pc', files: [{ expires_at: expect.any(String) }] }]);

    await events.drain();
    const written = events.delivered.slice(seen);
    expect(written.length).toBeGreaterThan(0);
    for (const event of written) expect(event.actor).toMatch(/^customer:[0-9a-f]{16}$/);
  });

  it('refuses a request made for another license or application, naming `request`, and one that does not decode', async () => {
    const { owner, license, token } = await signedInWith('bob@example.com');
    const [mine] = await licensesOf(env, events, owner, 'bob@example.com');
    for (const request of [
      activationRequest({ app_id: owner.app_id, license: mine!.key, hwid: 'pc' }),
      activationRequest({ app_id: '3f1c2b9e-8d7a-4c51-9e2f-6b0a1d2c3e4f', license: license.key, hwid: 'pc' }),
      'lfr1.not-a-request',
    ]) {
      const refused = await fileFor(token, license.key, request);
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual({ error: expect.stringMatching(/^request: /), error_code: 'INVALID_INPUT' });
    }
  });

  it('answers /license-file\'s codes in the management shape', async () => {
    const { owner, license, token } = await signedInWith('cy@example.com', { hwid_lock: true, hwid: 'desk-pc', hwids: ['desk-pc'], max_devices: 1 });
    const refused = await fileFor(token, license.key, activationRequest({ app_id: owner.app_id, license: license.key, hwid: 'other-pc' }));
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error_code: 'HWID_MISMATCH' });
  });

  it('is refused when the owner switched license files off, and reaches no other key', async () => {
    const off = await signedInWith('dee@example.com', { hwid_lock: true }, { allow_license_files: false });
    const refused = await fileFor(off.token, off.license.key, activationRequest({ app_id: off.owner.app_id, license: off.license.key, hwid: 'pc' }));
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: expect.any(String), error_code: 'NOT_ALLOWED' });

    const someoneElses = await signedInWith('eve@example.com');
    const { token } = await signedInWith('fay@example.com');
    const unreachable = await fileFor(token, someoneElses.license.key, activationRequest({ app_id: someoneElses.owner.app_id, license: someoneElses.license.key, hwid: 'pc' }));
    expect(unreachable.status).toBe(404);
    expect(unreachable.body).toEqual({ error: 'License not found', error_code: 'LICENSE_NOT_FOUND' });
  });
});
