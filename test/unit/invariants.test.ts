import { checkInvariants } from '../support/invariants';

const subscription = { pk: 'SUB#s1', sk: 'SUB', subscription_id: 's1', single_key_per_hwid: true };
const license = (key: string, fields: Record<string, unknown> = {}) => ({
  pk: `LIC#${key}`, sk: 'LIC', key, app_id: 'a1', subscription_id: 's1', hwid: null, username: null, ...fields,
});
const hwidItem = (hwid: string, key: string) => ({ pk: 'APP#a1', sk: `HWID#${hwid}`, app_id: 'a1', hwid, license_key: key });
const userItem = (username: string, key: string) => ({ pk: 'APP#a1', sk: `USER#${username.toLowerCase()}`, app_id: 'a1', username, license_key: key });

describe('the invariant checker', () => {
  it('passes a consistent table', () => {
    const items = [subscription, license('K1', { hwid: 'dev', username: 'Bob' }), hwidItem('dev', 'K1'), userItem('Bob', 'K1'), license('K2')];
    expect(checkInvariants(items, { created: ['K1', 'K2'] })).toEqual([]);
  });

  it('catches an HWID index item without its license binding', () => {
    expect(checkInvariants([subscription, license('K1'), hwidItem('dev', 'K1')])).toEqual([
      'HWID a1|dev points at license K1 bound to nothing',
    ]);
  });

  it('catches one HWID bound to two single-key licenses', () => {
    const items = [subscription, license('K1', { hwid: 'dev' }), license('K2', { hwid: 'dev' }), hwidItem('dev', 'K1')];
    expect(checkInvariants(items)).toContain('HWID a1|dev bound to two single-key licenses: K1 and K2');
  });

  it('catches a username index item pointing at a deleted license, and a name without its index item', () => {
    expect(checkInvariants([userItem('Bob', 'gone')])).toEqual(['username a1|bob points at missing license gone']);
    expect(checkInvariants([license('K1', { username: 'Ann' })])).toEqual(['license K1 named Ann without its index item']);
  });

  it('catches a counted create that is not stored', () => {
    expect(checkInvariants([license('K1')], { created: ['K1', 'K9'] })).toEqual(['created license K9 is missing']);
  });
});
