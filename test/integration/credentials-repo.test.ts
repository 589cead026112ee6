import { hashPassword } from '#core/domain/passwords';
import { keys } from '#data/keys';
import { getItem } from '#data/db';
import { createTestEnv, type TestEnv } from '../support/env';
import { seedLicense, seedSubscription } from '../support/fixtures';
import { createOwner, type Owner } from '../support/owners';

let env: TestEnv;
let owner: Owner;

beforeAll(async () => {
  env = await createTestEnv();
  owner = await createOwner(env.deps);
});

async function freshLicense() {
  const subscription = await seedSubscription(env.deps, owner);
  return seedLicense(env.deps, subscription);
}

describe('the credentials repository', () => {
  it('gives a username to exactly one of two licenses racing for it', async () => {
    const [first, second] = await Promise.all([freshLicense(), freshLicense()]);
    const hash = await hashPassword('password-1', 4);
    const outcomes = await Promise.all([
      env.deps.repos.credentials.set(first, 'Racer', hash),
      env.deps.repos.credentials.set(second, 'racer', hash),
    ]);
    expect(outcomes.sort()).toEqual(['updated', 'username_taken']);
    const index = await env.deps.repos.usernames.get(owner.app_id, 'RACER');
    expect([first.key, second.key]).toContain(index?.license_key);
    expect((await env.deps.repos.licenses.get(index!.license_key, owner.team_id))?.username?.toLowerCase()).toBe('racer');
    const loser = index!.license_key === first.key ? second : first;
    expect((await env.deps.repos.licenses.get(loser.key, loser.team_id))?.username).toBeNull();
  });

  it('frees the old username when a license is renamed', async () => {
    const license = await freshLicense();
    const hash = await hashPassword('password-1', 4);
    expect(await env.deps.repos.credentials.set(license, 'old-name', hash)).toBe('updated');
    const renamedFrom = (await env.deps.repos.licenses.get(license.key, license.team_id))!;
    expect(await env.deps.repos.credentials.set(renamedFrom, 'new-name', hash)).toBe('updated');

    expect(await getItem(env.deps.table, keys.username(owner.app_id, 'old-name'))).toBeUndefined();
    expect(await env.deps.repos.usernames.get(owner.app_id, 'new-name')).toMatchObject({ license_key: license.key });
  });

  it('refuses a write based on a stale read of the license', async () => {
    const license = await freshLicense();
    const hash = await hashPassword('password-1', 4);
    expect(await env.deps.repos.credentials.set(license, 'first-name', hash)).toBe('updated');
    expect(await env.deps.repos.credentials.set(license, 'second-name', hash)).toBe('license_changed');
    expect(await env.deps.repos.usernames.get(owner.app_id, 'second-name')).toBeUndefined();
  });
});
