import { licenseFingerprint } from '#core/logger';
import type { License } from '#data/model/license';
import type { Subscription } from '#data/model/subscription';
import { startTestServer, type TestServer } from '../support/env';
import { startTestEvents } from '../support/events';
import { seedLicense, seedSubscription } from '../support/fixtures';
import { createOwner, type Owner } from '../support/owners';

/**
 * A license key is an end user's credential: the failure paths that log (a
 * bulk key failing, /auth giving up on a license that keeps changing) must
 * not put one into a log line at info level or above, and the events
 * consumer must not put one, a username or an HWID into a line at any level.
 */
let env: TestServer;
let owner: Owner;
let subscription: Subscription;
/** The keys whose DynamoDB requests fail, and how: set by each test. */
let failing: { keys: string[]; command: string; fault: (key: string) => Error } | undefined;

beforeAll(async () => {
  env = await startTestServer({ config: { cacheTtlSeconds: 0 } });
  owner = await createOwner(env.deps);
  subscription = await seedSubscription(env.deps, owner);
  env.client.middlewareStack.add(
    (next, context) => async (args) => {
      const request = JSON.stringify(args.input);
      const current = failing?.command === context.commandName ? failing : undefined;
      const key = current?.keys.find((candidate) => request.includes(candidate));
      if (current && key !== undefined) throw current.fault(key);
      return next(args);
    },
    { step: 'initialize', name: 'injectedKeyFault' },
  );
});
afterEach(() => {
  failing = undefined;
});
afterAll(() => env.close());

/** An error as a lower layer might word it, quoting the key it was about; not one the SDK retries. */
const quotingError = (name: string) => (key: string) =>
  Object.assign(new Error(`${name} for item LIC#${key} (injected)`), { name, $fault: 'client', $metadata: { httpStatusCode: 400 } });

const infoOrAbove = () => env.logs.lines.filter((line) => JSON.parse(line).level !== 'debug');

function expectNoKeyLogged(licenses: License[]) {
  const lines = infoOrAbove();
  for (const license of licenses) {
    expect(lines.filter((line) => line.includes(license.key))).toEqual([]);
  }
}

const usedLicenses = (count: number) =>
  Promise.all(
    Array.from({ length: count }, () =>
      seedLicense(env.deps, subscription, { first_used_at: '2026-01-01T00:00:00.000Z', expires_at: '2099-01-01T00:00:00.000Z' }),
    ),
  );

describe('license keys in logs', () => {
  it.each([
    ['/license/delete-bulk', 'TransactWriteItemsCommand', {}],
    ['/license/update-status-bulk', 'UpdateItemCommand', { status: 'paused' }],
    ['/hwid/toggle-lock-bulk', 'UpdateItemCommand', { hwid_lock: true }],
    ['/license/extend-bulk', 'TransactWriteItemsCommand', { extend_seconds: 60 }],
  ])('%s logs a failing key by fingerprint only, even when the error quotes it', async (path, command, extra) => {
    const [ok, bad, alsoBad] = await usedLicenses(3);
    failing = { keys: [bad!.key, alsoBad!.key], command, fault: quotingError('ValidationException') };
    const logged = env.logs.lines.length;

    const response = await env.post(path, { license_keys: [ok!.key, bad!.key, alsoBad!.key], ...extra }, owner.auth);

    expect(response.status).toBe(200);
    expect(response.body.data.failed).toEqual([
      { license_key: bad!.key, error_code: 'SERVER_ERROR' },
      { license_key: alsoBad!.key, error_code: 'SERVER_ERROR' },
    ]);
    const failures = env.logs.lines.slice(logged).filter((line) => line.includes('bulk item failed'));
    expect(failures).toHaveLength(2);
    expect(failures.some((line) => line.includes(licenseFingerprint(bad!.key)))).toBe(true);
    expectNoKeyLogged([ok!, bad!, alsoBad!]);
  });

  it('/auth logs a license that changed under every activation attempt by fingerprint only', async () => {
    const [license] = await usedLicenses(1);
    failing = {
      keys: [license!.key],
      command: 'UpdateItemCommand',
      fault: () => Object.assign(new Error('The conditional request failed'), { name: 'ConditionalCheckFailedException', $fault: 'client', $metadata: { httpStatusCode: 400 } }),
    };
    const logged = env.logs.lines.length;

    const response = await env.post('/auth', { app_id: owner.app_id, license: license!.key, hwid: 'device-1' });

    expect(response.status).toBe(500);
    const failures = env.logs.lines.slice(logged).filter((line) => line.includes('request failed'));
    expect(failures).toHaveLength(1);
    expect(failures[0]).toContain(licenseFingerprint(license!.key));
    expectNoKeyLogged([license!]);
  });

  it('the events consumer at debug level logs each event by fingerprint, never a key, username or HWID', async () => {
    const events = await startTestEvents(env);
    const logged = env.logs.lines.length;
    const created = await env.post(
      '/license/create',
      { app_id: owner.app_id, subscription_id: subscription.subscription_id, duration_unit: 'days', duration_value: 30, hwid_lock: true, username: 'events-log-user', password: 'events-log-password' },
      owner.auth,
    );
    const key: string = created.body.data.key;
    const bound = await env.post('/auth', { app_id: owner.app_id, license: key, hwid: 'events-log-hwid-1' });
    const reset = await env.post('/reset-hwid', { app_id: owner.app_id, username: 'events-log-user', password: 'events-log-password' });
    await events.drain();
    await events.stop();

    expect([created.status, bound.status, reset.status]).toEqual([200, 200, 200]);
    const lines = env.logs.lines.slice(logged);
    const eventLines = lines.map((line) => JSON.parse(line)).filter((line) => line.message === 'event' && line.subject === `license:${licenseFingerprint(key)}`);
    expect(eventLines.map((line) => line.type)).toEqual(expect.arrayContaining(['license.created', 'license.activated', 'license.hwid_bound', 'license.hwid_reset']));
    for (const secret of [key, 'events-log-user', 'events-log-password', 'events-log-hwid-1']) {
      expect(lines.filter((line) => line.includes(secret))).toEqual([]);
    }
  });
});
