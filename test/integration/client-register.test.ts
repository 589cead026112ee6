import { newId } from '#core/ids';
import { getItem } from '#data/db';
import { keys } from '#data/keys';
import type { License } from '#data/model/license';
import { seedLicense, seedSubscription } from '../support/fixtures';
import { createOwner, madeBeforeAll, withOwner } from '../support/owners';
import { checkInvariants, scanAll } from '../support/invariants';
import * as licenses from '#data/license.repo';

const { env, owner } = withOwner();
const subscription = madeBeforeAll(() => seedSubscription(env.deps, owner));

const license = (overrides: Partial<License> = {}) => seedLicense(env.deps, subscription, overrides);
const register = (body: Record<string, unknown>) => env.post('/register', { app_id: owner.app_id, ...body });
const login = (username: string, password: string, appId = owner.app_id) => env.post('/auth', { app_id: appId, username, password });
const failure = (message: string) => ({ success: false, message });
const updated = { success: true, message: 'License credentials updated successfully' };

describe('POST /register validation', () => {
  const appId = newId();
  it.each([
    ['no app_id', {}, 'App ID is required'],
    ['an app_id that is not a UUID', { app_id: 'app', license: 'K', username: 'alice', password: 'password' }, 'Invalid App ID format (must be a valid UUID)'],
    ['no license', { app_id: appId, username: 'alice', password: 'password' }, 'License key is required'],
    ['a license that is not a string', { app_id: appId, license: 12, username: 'alice', password: 'password' }, 'License key is required'],
    ['no username', { app_id: appId, license: 'K', password: 'password' }, 'Username is required'],
    ['no password', { app_id: appId, license: 'K', username: 'alice' }, 'Password is required'],
    ['a password that is not a string', { app_id: appId, license: 'K', username: 'alice', password: 12345678 }, 'Password is required'],
    ['a 2-character username', { app_id: appId, license: 'K', username: 'al', password: 'password' }, 'Username must be 3 to 50 characters'],
    ['a 51-character username', { app_id: appId, license: 'K', username: 'a'.repeat(51), password: 'password' }, 'Username must be 3 to 50 characters'],
    ['a 7-character password', { app_id: appId, license: 'K', username: 'alice', password: 'passwor' }, 'Password must be at least 8 characters'],
    ['a 73-byte password', { app_id: appId, license: 'K', username: 'alice', password: `${'é'.repeat(36)}x` }, 'Password must be at most 72 bytes'],
  ])('answers 400 for %s', async (_case, body, message) => {
    const response = await env.post('/register', body);
    expect(response.status).toBe(400);
    expect(response.body).toEqual(failure(message));
  });

  it('answers 400 for a body that is not JSON, with the CORS origin header', async () => {
    const response = await env.post('/register', 'username=alice');
    expect(response.status).toBe(400);
    expect(response.body).toEqual(failure('Invalid JSON in request body'));
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('checks the required fields before the length rules', async () => {
    const response = await env.post('/register', { app_id: appId, license: 'K', username: 'al' });
    expect(response.body.message).toBe('Password is required');
  });

  it('accepts a username of 50 characters and a password of exactly 72 bytes', async () => {
    const key = (await license()).key;
    const response = await register({ license: key, username: 'b'.repeat(50), password: 'p'.repeat(72) });
    expect(response.body).toEqual(updated);
  });
});

describe('POST /register failures', () => {
  it('answers INVALID_APP_ID for an application that does not exist', async () => {
    const response = await env.post('/register', { app_id: newId(), license: 'K', username: 'alice', password: 'password' });
    expect(response.status).toBe(403);
    expect(response.body).toEqual(failure('INVALID_APP_ID'));
  });

  it('answers LICENSE_NOT_FOUND for an unknown license and for another application’s license', async () => {
    const other = await createOwner(env.deps);
    const foreign = await seedLicense(env.deps, await seedSubscription(env.deps, other));
    expect((await register({ license: 'NO-SUCH-KEY', username: 'alice', password: 'password' })).body).toEqual(failure('LICENSE_NOT_FOUND'));
    const response = await register({ license: foreign.key, username: 'alice', password: 'password' });
    expect(response.status).toBe(403);
    expect(response.body).toEqual(failure('LICENSE_NOT_FOUND'));
    expect((await licenses.get(env.deps.table, foreign.key, foreign.team_id))?.username).toBeNull();
  });

  it('answers USERNAME_TAKEN when another license of the app holds the username in any case', async () => {
    const [first, second] = [await license(), await license()];
    expect((await register({ license: first.key, username: 'Taken-Name', password: 'password-1' })).body).toEqual(updated);

    const response = await register({ license: second.key, username: 'tAKEN-nAME', password: 'password-2' });

    expect(response.status).toBe(403);
    expect(response.body).toEqual(failure('USERNAME_TAKEN'));
    expect((await licenses.get(env.deps.table, second.key, second.team_id))?.username).toBeNull();
  });

  it('lets another application use the same username', async () => {
    const other = await createOwner(env.deps);
    const foreign = await seedLicense(env.deps, await seedSubscription(env.deps, other));
    await register({ license: (await license()).key, username: 'everywhere', password: 'password-1' });
    const response = await env.post('/register', { app_id: other.app_id, license: foreign.key, username: 'everywhere', password: 'password-2' });
    expect(response.body).toEqual(updated);
  });
});

describe('POST /register then /auth by username', () => {
  it('stores only a bcrypt hash of the password and logs the user in with it', async () => {
    const key = (await license()).key;

    const registered = await register({ license: key, username: 'Alice', password: 'correct horse' });

    expect(registered.status).toBe(200);
    expect(registered.body).toEqual(updated);
    const index = await getItem(env.deps.table, keys.username(owner.app_id, 'alice'));
    expect(index?.password_hash).toMatch(/^\$2[aby]\$04\$/);
    expect(JSON.stringify(index)).not.toContain('correct horse');
    expect(JSON.stringify(await licenses.get(env.deps.table, key, owner.team_id))).not.toContain('correct horse');

    const response = await login('Alice', 'correct horse');
    expect(response.status).toBe(200);
    expect(response.body.message).toBe('LICENSE_VERIFIED_UNUSED_AND_UNLOCKED_KEY');
    expect(response.body.data).toMatchObject({ key, username: 'Alice' });
    expect(JSON.stringify(response.body)).not.toContain('$2');
  });

  it('matches usernames without regard to case', async () => {
    const key = (await license()).key;
    await register({ license: key, username: 'MixedCase', password: 'password-1' });
    expect((await login('mixedcase', 'password-1')).body.data.key).toBe(key);
  });

  it('answers INVALID_USERNAME_OR_PASSWORD for a wrong password, an unknown username and another app’s user', async () => {
    await register({ license: (await license()).key, username: 'bob', password: 'right-password' });
    const other = await createOwner(env.deps);

    for (const response of [
      await login('bob', 'wrong-password'),
      await login('nobody-here', 'right-password'),
      await login('bob', 'right-password', other.app_id),
    ]) {
      expect(response.status).toBe(403);
      expect(response.body).toEqual(failure('INVALID_USERNAME_OR_PASSWORD'));
    }
  });

  it('refuses a login password longer than bcrypt compares, even when its first 72 bytes match', async () => {
    const password = 'p'.repeat(72);
    await register({ license: (await license()).key, username: 'long-pass', password });
    expect((await login('long-pass', `${password}extra`)).body).toEqual(failure('INVALID_USERNAME_OR_PASSWORD'));
    expect((await login('long-pass', password)).body.success).toBe(true);
  });

  it('replaces the password when the same username is registered again', async () => {
    const key = (await license()).key;
    await register({ license: key, username: 'carol', password: 'first-password' });

    expect((await register({ license: key, username: 'carol', password: 'second-password' })).body).toEqual(updated);

    expect((await login('carol', 'first-password')).body).toEqual(failure('INVALID_USERNAME_OR_PASSWORD'));
    expect((await login('carol', 'second-password')).body.success).toBe(true);
  });

  it('replaces the username: the old one no longer logs in and is free for another license', async () => {
    const key = (await license()).key;
    await register({ license: key, username: 'dave', password: 'password-1' });

    expect((await register({ license: key, username: 'david', password: 'password-2' })).body).toEqual(updated);

    expect((await login('dave', 'password-1')).body).toEqual(failure('INVALID_USERNAME_OR_PASSWORD'));
    expect((await login('david', 'password-2')).body.data).toMatchObject({ key, username: 'david' });
    expect((await register({ license: (await license()).key, username: 'dave', password: 'password-3' })).body).toEqual(updated);
  });

  it('gives a username to exactly one of two licenses registering it at once', async () => {
    const [first, second] = [await license(), await license()];
    const responses = await Promise.all(
      [first, second].map((racer) => register({ license: racer.key, username: 'contested', password: 'password-1' })),
    );
    expect(responses.map((response) => response.body.message).sort()).toEqual(['License credentials updated successfully', 'USERNAME_TAKEN']);
    expect(checkInvariants(await scanAll(env.deps.table))).toEqual([]);
  });

  it('runs the license checks after the password: a paused license answers LICENSE_NOT_ACTIVE', async () => {
    const key = (await license({ status: 'paused' })).key;
    await register({ license: key, username: 'paused-user', password: 'password-1' });
    expect((await login('paused-user', 'password-1')).body).toEqual(failure('LICENSE_NOT_ACTIVE'));
    expect((await login('paused-user', 'wrong-password')).body).toEqual(failure('INVALID_USERNAME_OR_PASSWORD'));
  });
});
