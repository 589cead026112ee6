import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '#data/keys';
import type { License } from '#data/model/license';
import { createFakeClock } from '../support/clock';
import { seedSubscription } from '../support/fixtures';
import { activationRequest, bearer, licensesOf, portalOwner, signedInToken, withPortalServer } from '../support/portal';

/** What a signed-in customer reaches (docs/portal.md#what-customers-see): their own licenses of one application, nothing else. */
const clock = createFakeClock(new Date('2026-06-01T10:00:00.000Z'));
const { env, events } = withPortalServer(clock);

const licensesWith = async (token: string) => env.post('/portal/licenses', {}, bearer(token));
const keysOf = (answer: { body: { data: { key: string }[] } }) => answer.body.data.map((license) => license.key).sort();

/** Sets a license's email as a write of it would, past every route. */
async function storeEmail(license: License, email: string): Promise<void> {
  await env.deps.table.doc.send(
    new UpdateCommand({ TableName: env.deps.table.name, Key: keys.licenseOf(license), UpdateExpression: 'SET email = :email', ExpressionAttributeValues: { ':email': email } }),
  );
}

describe('a customer\'s licenses', () => {
  it('reach only the licenses of the session\'s email and application, on every route: not another email\'s, another application\'s or another team\'s', async () => {
    const owner = await portalOwner(env);
    const sibling = { ...owner, app_id: (await env.post('/app/create', { name: 'Sibling' }, owner.auth)).body.data.app_id as string };
    await env.post('/app/settings', { app_id: sibling.app_id, portal: { enabled: true } }, owner.auth);
    const stranger = await portalOwner(env);
    const own = await licensesOf(env, events, owner, 'ann@example.com', 2);
    const [otherEmail] = await licensesOf(env, events, owner, 'bob@example.com');
    const [otherApp] = await licensesOf(env, events, sibling, 'ann@example.com');
    const [otherTeam] = await licensesOf(env, events, stranger, 'ann@example.com');

    const ann = await signedInToken(env, owner, 'ann@example.com');
    const listed = await licensesWith(ann);

    expect(listed.status).toBe(200);
    expect(keysOf(listed)).toEqual(own.map((license) => license.key).sort());
    const everyAnswer = JSON.stringify(listed.body);
    for (const unreachable of [otherEmail!, otherApp!, otherTeam!]) {
      expect(everyAnswer).not.toContain(unreachable.key);
      const released = await env.post('/portal/release-device', { license_key: unreachable.key, hwid: 'any-pc' }, bearer(ann));
      expect(released.body).toEqual({ error: 'License not found', error_code: 'LICENSE_NOT_FOUND' });
      const request = activationRequest({ app_id: unreachable.app_id, license: unreachable.key, hwid: 'any-pc' });
      const file = await env.post('/portal/license-file', { license_key: unreachable.key, request }, bearer(ann));
      expect(file.body).toEqual({ error: 'License not found', error_code: 'LICENSE_NOT_FOUND' });
      const billing = await env.post('/portal/billing', { license_key: unreachable.key }, bearer(ann));
      expect(billing.body).toEqual({ error: 'License not found', error_code: 'LICENSE_NOT_FOUND' });
    }
    expect(keysOf(await licensesWith(await signedInToken(env, sibling, 'ann@example.com')))).toEqual([otherApp!.key]);
  });

  it('drop a license at once when its email changes, before its lookup entries follow', async () => {
    const owner = await portalOwner(env);
    const [kept, moved] = await licensesOf(env, events, owner, 'cy@example.com', 2);
    const token = await signedInToken(env, owner, 'cy@example.com');
    await storeEmail(moved!, 'someone-else@example.com');
    expect(keysOf(await licensesWith(token))).toEqual([kept!.key]);
  });

  it('show each license\'s devices and when a device may be released, and none of the owner\'s own fields', async () => {
    const owner = await portalOwner(env);
    const tier = await seedSubscription(env.deps, owner, { name: 'Pro', level: 2, features: ['export'] });
    const resetAt = new Date(clock.now().getTime() - 600_000).toISOString();
    const [seeded] = await licensesOf(env, events, owner, 'dee@example.com', 1, {
      subscription_id: tier.subscription_id,
      hwid: 'desk-pc',
      hwids: ['desk-pc'],
      hwid_lock: true,
      hwid_reset_allowed: true,
      hwid_reset_interval: 3600,
      last_hwid_reset_at: resetAt,
      tags: ['vip'],
      metadata: { note: 'owner only' },
    });
    const [license] = (await licensesWith(await signedInToken(env, owner, 'dee@example.com'))).body.data;
    expect(license).toEqual({
      key: seeded!.key,
      status: 'active',
      expires_at: seeded!.expires_at,
      subscription_name: 'Pro',
      features: ['export'],
      usage: [],
      max_devices: 1,
      devices: [{ hwid: 'desk-pc', lease: null, files: [] }],
      release: { allowed_now: false, next_at: new Date(Date.parse(resetAt) + 3600_000).toISOString() },
      billing: false,
    });
  });
});
