import { seedLicense, seedSubscription } from '../support/fixtures';
import { madeBeforeAll, withOwner } from '../support/owners';
import * as licenses from '#data/license.repo';
import * as usernames from '#data/username.repo';

/**
 * Values that pass a naive check and then fail in DynamoDB or in JavaScript's
 * Date: each must be a 400 naming the field, never a 500.
 */
const { env, owner } = withOwner();
const subscription = madeBeforeAll(() => seedSubscription(env.deps, owner));

const createBody = (extra: Record<string, unknown> = {}) => ({
  app_id: owner.app_id,
  subscription_id: subscription.subscription_id,
  duration_unit: 'days',
  duration_value: 30,
  ...extra,
});

/** A JSON object nested `depth` levels: {"a":{"a":...{}}}. */
const nested = (depth: number): Record<string, unknown> => (depth <= 1 ? {} : { a: nested(depth - 1) });

describe('metadata DynamoDB cannot store', () => {
  const rejected: [string, string][] = [
    ['nesting deeper than 16 levels', JSON.stringify({ deep: nested(33) })],
    ['a number too large for DynamoDB', '{"n": 1e126}'],
    ['an integer JSON parsing may have changed', '{"id": 12345678901234567890}'],
    ['a number too small for DynamoDB', '{"n": 5e-324}'],
    ['an empty key', '{"": 1}'],
    ['an array nested 20000 deep', `{"a": ${'['.repeat(20000)}${']'.repeat(20000)}}`],
    ['a __proto__ key', '{"__proto__": {"polluted": true}}'],
    ['a constructor key, deep down', '{"a": {"b": [{"constructor": 1}]}}'],
    ['a prototype key', '{"prototype": 1}'],
  ];

  it.each(rejected)('/license/create answers 400 INVALID_INPUT naming metadata for %s', async (_, metadata) => {
    const body = JSON.stringify(createBody()).replace(/}$/, `,"metadata":${metadata}}`);

    const response = await env.post('/license/create', body, owner.auth);

    expect(response.status).toBe(400);
    expect(response.body.error_code).toBe('INVALID_INPUT');
    expect(response.body.error).toMatch(/^metadata: /);
  });

  it.each(rejected)('/license/update-metadata answers 400 INVALID_INPUT naming metadata for %s', async (_, metadata) => {
    const license = await seedLicense(env.deps, subscription);

    const response = await env.post('/license/update-metadata', `{"license_key":"${license.key}","metadata":${metadata}}`, owner.auth);

    expect(response.status).toBe(400);
    expect(response.body.error).toMatch(/^metadata: /);
    expect((await licenses.get(env.deps.table, license.key, license.team_id))?.metadata).toEqual({});
  });

  it('stores metadata nested 16 levels with numbers at the ends of the range it keeps exactly', async () => {
    const metadata = { deep: nested(15), large: Number.MAX_SAFE_INTEGER, small: -1e-130, fraction: 0.25, zero: 0 };

    const response = await env.post('/license/create', createBody({ metadata }), owner.auth);

    expect(response.status).toBe(200);
    expect(response.body.data.metadata).toEqual(metadata);
  });
});

describe('expiry past what a date can hold', () => {
  it('/license/extend answers 400 naming extend_seconds when a used license would run past 9999-12-31', async () => {
    const license = await seedLicense(env.deps, subscription, { first_used_at: '2026-01-01T00:00:00.000Z', expires_at: '9999-12-01T00:00:00.000Z' });

    const response = await env.post('/license/extend', { license_key: license.key, extend_seconds: 90 * 86400 }, owner.auth);

    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: 'extend_seconds: would extend the license past 9999-12-31T23:59:59.999Z', error_code: 'INVALID_INPUT' });
    expect((await licenses.get(env.deps.table, license.key, license.team_id))?.expires_at).toBe('9999-12-01T00:00:00.000Z');
  });

  it('/license/extend answers 400 when an unused license would last more than 100 years', async () => {
    const license = await seedLicense(env.deps, subscription, { initial_duration: 100 * 365 * 86400 - 10 });

    const response = await env.post('/license/extend', { license_key: license.key, extend_seconds: 60 }, owner.auth);

    expect(response.status).toBe(400);
    expect(response.body.error).toBe('extend_seconds: would make the duration longer than 100 years');
  });

  it('/license/extend-bulk answers INVALID_INPUT for the key that would overflow and extends the others', async () => {
    const full = await seedLicense(env.deps, subscription, { first_used_at: '2026-01-01T00:00:00.000Z', expires_at: '9999-12-31T00:00:00.000Z' });
    const fine = await seedLicense(env.deps, subscription);

    const response = await env.post('/license/extend-bulk', { license_keys: [full.key, fine.key], extend_seconds: 86400 * 2 }, owner.auth);

    expect(response.body.data).toEqual({ succeeded: [fine.key], failed: [{ license_key: full.key, error_code: 'INVALID_INPUT' }] });
    expect((await licenses.get(env.deps.table, fine.key, fine.team_id))?.initial_duration).toBe(fine.initial_duration + 86400 * 2);
  });

  it('/auth activates a license whose stored duration reaches past year 9999 with an expiry at the last instant, not a 500', async () => {
    const license = await seedLicense(env.deps, subscription, { initial_duration: 9_000_000_000_000 });

    const response = await env.post('/auth', { app_id: owner.app_id, license: license.key });

    expect(response.status).toBe(200);
    expect(response.body.data.expires_at).toBe('9999-12-31T23:59:59.999Z');
  });
});

describe('usernames are trimmed and in Unicode NFC before they are compared or stored', () => {
  const register = (license: string, username: string) => env.post('/register', { app_id: owner.app_id, license, username, password: 'password-1' });

  it('a username registered with white space around it logs in without it', async () => {
    const license = await seedLicense(env.deps, subscription);
    expect((await register(license.key, '  spaced-user  ')).status).toBe(200);

    const response = await env.post('/auth', { app_id: owner.app_id, username: 'spaced-user', password: 'password-1' });

    expect(response.status).toBe(200);
    expect(response.body.data.username).toBe('spaced-user');
  });

  it('a name with a combining accent and the same name precomposed are one username', async () => {
    const [first, second] = [await seedLicense(env.deps, subscription), await seedLicense(env.deps, subscription)];
    expect((await register(first!.key, 'e\u0301milie')).status).toBe(200);

    const response = await register(second!.key, '\u00e9milie');

    expect(response.status).toBe(403);
    expect(response.body.message).toBe('USERNAME_TAKEN');
  });

  it('a username of white space only is missing: /register says so, /auth has no method', async () => {
    const license = await seedLicense(env.deps, subscription);

    expect((await register(license.key, '   ')).body).toEqual({ success: false, message: 'Username is required' });
    expect((await env.post('/auth', { app_id: owner.app_id, username: '   ', password: 'password-1' })).body).toEqual({
      success: false,
      message: 'No valid authentication method provided (missing license key or username/password)',
    });
  });

  it('management routes answer INVALID_INPUT naming username for white space only, and store the trimmed name', async () => {
    const blank = await env.post('/license/create', createBody({ username: '    ', password: 'password-1' }), owner.auth);
    const spaced = await env.post('/license/create', createBody({ username: ' mgmt-user ', password: 'password-1' }), owner.auth);

    expect(blank.status).toBe(400);
    expect(blank.body.error).toMatch(/^username: /);
    expect(spaced.body.data.username).toBe('mgmt-user');
    expect(await usernames.get(env.deps.table, owner.app_id, 'mgmt-user')).toMatchObject({ license_key: spaced.body.data.key });
  });
});

describe('username length is counted in characters everywhere', () => {
  it('management routes accept a username of 26 emoji, as /register does', async () => {
    const emoji = '\u{1F600}'.repeat(26);

    const response = await env.post('/license/create', createBody({ username: emoji, password: 'password-1' }), owner.auth);

    expect(response.status).toBe(200);
    expect(response.body.data.username).toBe(emoji);
  });
});

describe('an app_id in upper case is the same application (UUIDs are case-insensitive)', () => {
  it('/auth accepts it and answers as for the lower-case id', async () => {
    const license = await seedLicense(env.deps, subscription);

    const response = await env.post('/auth', { app_id: owner.app_id.toUpperCase(), license: license.key });

    expect(response.status).toBe(200);
    expect(response.body.success).toBe(true);
  });

  it('/license/create and /license/get-bulk accept it and store the lower-case id', async () => {
    const created = await env.post('/license/create', createBody({ app_id: owner.app_id.toUpperCase(), subscription_id: subscription.subscription_id.toUpperCase() }), owner.auth);
    const listed = await env.post('/license/get-bulk', { app_id: owner.app_id.toUpperCase(), per_page: 100 }, owner.auth);

    expect(created.status).toBe(200);
    expect(created.body.data.app_id).toBe(owner.app_id);
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((license: { key: string }) => license.key)).toContain(created.body.data.key);
  });
});
