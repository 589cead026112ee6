import { hashPassword } from '#core/domain/passwords';
import { keys } from '#data/keys';
import { getItem } from '#data/db';
import { createTestEnv, type TestEnv } from '../support/env';
import { seedLicense, seedSubscription } from '../support/fixtures';
import { createOwner, type Owner } from '../support/owners';
import * as credentials from '#data/credentials.repo';
import * as licenses from '#data/license.repo';
import * as usernames from '#data/username.repo';

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
      credentials.set(env.deps.table, first, 'Racer', hash),
      credentials.set(env.deps.table, second, 'racer', hash),
    ]);
    expect(outcomes.sort()).toEqual(['updated', 'username_taken']);
    const index = await usernames.get(env.deps.table, owner.app_id, 'RACER');
    expect([first.key, second.key]).toContain(index?.license_key);
    expect((await licenses.get(env.deps.table, index!.license_key, owner.team_id))?.username?.toLowerCase()).toBe('racer');
    const loser = index!.license_key === first.key ? second : first;
    expect((await licenses.get(env.deps.table, loser.key, loser.team_id))?.username).toBeNull();
  });

  it('frees the old username when a license is renamed', async () => {
    const license = await freshLicense();
    const hash = await hashPassword('password-1', 4);
    expect(await credentials.set(env.deps.table, license, 'old-name', hash)).toBe('updated');
    const renamedFrom = (await licenses.get(env.deps.table, license.key, license.team_id))!;
    expect(await credentials.set(env.deps.table, renamedFrom, 'new-name', hash)).toBe('updated');

    expect(await getItem(env.deps.table, keys.username(owner.app_id, 'old-name'))).toBeUndefined();
    expect(await usernames.get(env.deps.table, owner.app_id, 'new-name')).toMatchObject({ license_key: license.key });
  });

  it('refuses a write based on a stale read of the license', async () => {
    const license = await freshLicense();
    const hash = await hashPassword('password-1', 4);
    expect(await credentials.set(env.deps.table, license, 'first-name', hash)).toBe('updated');
    expect(await credentials.set(env.deps.table, license, 'second-name', hash)).toBe('license_changed');
    expect(await usernames.get(env.deps.table, owner.app_id, 'second-name')).toBeUndefined();
  });
});
