import { keys } from '../../functions/data/keys';
import { leadingKeyPatterns, partitionPrefixes, tableAccess } from '../../lib/permissions';

// The grants written out in full, so that widening one is a visible change in review, not a side effect.
describe('table access per function', () => {
  const expected = {
    client: [
      { actions: ['BatchGetItem', 'GetItem'], keys: ['APP#*', 'LIC#*', 'SUB#*', 'TEAM#*'] },
      { actions: ['DeleteItem', 'PutItem', 'UpdateItem'], keys: ['APP#*', 'LIC#*'] },
    ],
    license: [
      { actions: ['BatchGetItem', 'GetItem', 'Query'], keys: ['APP#*', 'LIC#*', 'REQ#*', 'SUB#*'] },
      { actions: ['BatchWriteItem', 'ConditionCheckItem', 'DeleteItem', 'PutItem', 'UpdateItem'], keys: ['APP#*', 'LIC#*', 'REQ#*'] },
    ],
    hwid: [
      { actions: ['GetItem'], keys: ['APP#*', 'LIC#*', 'SUB#*'] },
      { actions: ['DeleteItem', 'PutItem', 'UpdateItem'], keys: ['APP#*', 'LIC#*'] },
    ],
    subscription: [
      { actions: ['GetItem', 'Query'], keys: ['APP#*', 'SUB#*'] },
      { actions: ['DeleteItem', 'PutItem', 'UpdateItem'], keys: ['SUB#*'] },
    ],
    blacklist: [{ actions: ['DeleteItem', 'GetItem', 'Query', 'UpdateItem'], keys: ['APP#*'] }],
    authorizer: [{ actions: ['GetItem'], keys: ['APIKEY#*'] }],
    app: [{ actions: ['GetItem', 'Query', 'UpdateItem'], keys: ['APP#*'] }],
    events: [{ actions: ['PutItem', 'UpdateItem'], keys: ['APP#*#AUDIT*', 'APP#*#STATS', 'STREAM#*'] }],
  };

  it.each(Object.entries(expected))('allows the %s function exactly its actions, on its partitions only', (name, grants) => {
    const access = tableAccess[name as keyof typeof tableAccess];
    const actual = access.grants.map((grant) => ({
      actions: grant.actions.map((action) => action.replace(/^dynamodb:/, '')).sort(),
      keys: leadingKeyPatterns(grant.partitions).sort(),
    }));
    expect(actual).toEqual(grants);
  });

  it('grants only actions IAM knows: a transaction is authorized by its item actions', () => {
    const actions = Object.values(tableAccess).flatMap((access) => access.grants.flatMap((grant) => grant.actions));
    expect(actions).not.toContain('dynamodb:TransactWriteItems');
    expect(actions).not.toContain('dynamodb:TransactGetItems');
  });

  it('never lets the client function write API keys or teams', () => {
    const writes = tableAccess.client.grants.filter((grant) => grant.actions.some((action) => !['dynamodb:GetItem', 'dynamodb:BatchGetItem'].includes(action)));
    const patterns = writes.flatMap((grant) => leadingKeyPatterns(grant.partitions));
    expect(patterns).not.toContain(`${partitionPrefixes.apiKey}*`);
    expect(patterns).not.toContain(`${partitionPrefixes.team}*`);
    expect(patterns.every((pattern) => pattern.length > 1 && pattern.endsWith('#*'))).toBe(true);
  });

  it('lets only the groups that list by index query the indexes, on the partitions they list', () => {
    const indexed = Object.entries(tableAccess).filter(([, access]) => access.queriesIndexes.length > 0);
    expect(indexed.map(([name]) => name).sort()).toEqual(['app', 'license', 'subscription']);
    expect(leadingKeyPatterns(tableAccess.license.queriesIndexes)).toEqual(['APP#*']);
    expect(leadingKeyPatterns(tableAccess.subscription.queriesIndexes)).toEqual(['APP#*']);
    expect(leadingKeyPatterns(tableAccess.app.queriesIndexes)).toEqual(['APP#*', 'TEAM#*']);
    expect(keys.licensesOfApp('a')).toMatch(/^APP#/);
    expect(keys.subscriptionsOfApp('a')).toMatch(/^APP#/);
    expect(keys.appsOfTeam('t')).toMatch(/^TEAM#/);
  });

  it('knows the prefix of every partition key the key builders make', () => {
    const known = Object.values(partitionPrefixes);
    const built = [
      keys.team('t').pk,
      keys.apiKey('h').pk,
      keys.app('a').pk,
      keys.subscription('s').pk,
      keys.subscriptionByApp('a', 'c', 's').gsi1pk,
      keys.appByTeam('t', 'c', 'a').gsi1pk,
      keys.license('l').pk,
      keys.license('l', 't').pk,
      ...keys.licenseCandidates('l', 't').map((key) => key.pk),
      keys.licenseOf({ key: 'l', team_id: 't', key_scope: 'team' }).pk,
      keys.licenseByApp('a', 'c', 'l').gsi1pk,
      keys.hwid('a', 'h').pk,
      keys.username('a', 'u').pk,
      keys.blacklist('a', 'ip', '1.2.3.4').pk,
      keys.bulkMarker('t', '/r', { gatewayRequestId: 'id' }, 'l').pk,
      keys.audit('a', 'p').pk,
      keys.auditByLicense('a', 'l', 'p').gsi1pk,
      keys.dailyStats('a', '2026-01-01').pk,
      keys.streamRecord('e').pk,
    ];
    for (const partitionKey of built) expect(known.some((prefix) => partitionKey.startsWith(prefix))).toBe(true);
    expect(Object.keys(keys).sort()).toEqual(
      [
        'apiKey', 'app', 'appByTeam', 'appsOfTeam', 'blacklist', 'blacklistPrefix', 'bulkMarker', 'hwid',
        'license', 'licenseByApp', 'licenseCandidates', 'licenseOf', 'licensePosition', 'licensesOfApp',
        'subscription', 'subscriptionByApp', 'subscriptionsOfApp', 'team', 'username',
        'audit', 'auditOfApp', 'auditByLicense', 'auditOfLicense', 'auditPosition', 'dailyStats', 'dailyStatsOfApp', 'dailyStatsSortKey', 'streamRecord', 'entityOf',
      ].sort(),
    );
  });
});
