import { keys } from '../../functions/data/keys';
import { leadingKeyPatterns, partitionPrefixes, tableAccess } from '../../lib/permissions';

// Whether each function has exactly the grants its code needs is the IAM conformance check's to say
// (test/after-run/iam-conformance.test.ts, over every AWS call of a whole npm test); these are the rules the grants are written in.
describe('table access per function', () => {
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
      keys.licenseByApp('a', 'c', 'l').gsi2pk,
      keys.hwid('a', 'h').pk,
      keys.username('a', 'u').pk,
      keys.blacklist('a', 'ip', '1.2.3.4').pk,
      keys.bulkMarker('t', '/r', { gatewayRequestId: 'id' }, 'l').pk,
      keys.bulkRequest('t', '/r', 'id').pk,
      keys.audit('a', 'p').pk,
      keys.auditByLicense('a', 'l', 'p').gsi1pk,
      keys.dailyStats('a', '2026-01-01').pk,
      keys.statsTotals('a').pk,
      keys.expiryCount('a', keys.expirySortKey('D', '2026-01-01')).pk,
      keys.streamRecord('e').pk,
      keys.usageMarker(keys.license('l', 't'), 'u-12345678').pk,
      keys.webhook('w').pk,
      keys.webhookByApp('a', 'c', 'w').gsi1pk,
      keys.webhookCount('a').pk,
      keys.delivery('w', 'p').pk,
      keys.stripeConnection('a').pk,
      keys.stripeLicenses('a', 'cs_test_1').pk,
      keys.stripeEvent('a', 'evt_1', 0).pk,
      keys.stripePurchaseEmail('a', 'cs_test_1').pk,
      keys.boundDevice('a', 'h', keys.license('l').pk).pk,
      keys.licenseByExpiry('a', '2026-01-01T00:00:00.000Z', keys.license('l').pk).pk,
      keys.licenseByEmail('a', 'ann@example.com', keys.license('l').pk).pk,
      keys.migration('m').pk,
      keys.apiKeyByTeam('t', 'c', 'k').gsi1pk,
      keys.trialClaim('a', 'h').pk,
      keys.trialAddress('a', 'x').pk,
      keys.portalCode('a', 'e').pk,
      keys.portalEmailSignIns('a', 'e').pk,
      keys.portalAddressSignIns('a', 'x').pk,
      keys.portalSession('t').pk,
    ];
    for (const partitionKey of built) expect(known.some((prefix) => partitionKey.startsWith(prefix))).toBe(true);
    expect(Object.keys(keys).sort()).toEqual(
      [
        'apiKey', 'apiKeyByTeam', 'apiKeysOfTeam', 'app', 'appByTeam', 'appsOfTeam', 'blacklist', 'blacklistPrefix', 'bulkMarker', 'bulkRequest', 'hwid', 'boundDevice', 'devicesOf', 'licenseByExpiry', 'expiryOrderOf', 'expiryPosition', 'migration', 'licenseByEmail', 'licensesOfEmail',
        'license', 'licenseByApp', 'licenseCandidates', 'licenseOf', 'licensePosition', 'licensesOfApp',
        'subscription', 'subscriptionByApp', 'subscriptionsOfApp', 'team', 'username', 'usageMarker',
        'audit', 'auditOfApp', 'auditByLicense', 'auditOfLicense', 'auditPosition', 'dailyStats', 'dailyStatsOfApp', 'dailyStatsSortKey', 'statsTotals', 'expiryCount', 'expirySortKey', 'streamRecord', 'entityOf',
        'webhook', 'webhookByApp', 'webhooksOfApp', 'webhookCount', 'delivery', 'deliveryPrefix',
        'stripeConnection', 'stripeLicenses', 'stripeEvent', 'stripePurchaseEmail',
        'trialClaim', 'trialAddress',
        'portalCode', 'portalEmailSignIns', 'portalAddressSignIns', 'portalSession',
      ].sort(),
    );
  });
});
