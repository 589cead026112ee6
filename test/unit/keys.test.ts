import { keys } from '#data/keys';
import { createTableInput, tableDefinition } from '#data/table';

describe('key builders', () => {
  it('puts each entity under its own partition', () => {
    expect(keys.team('t1')).toEqual({ pk: 'TEAM#t1', sk: 'TEAM' });
    expect(keys.apiKey('abc')).toEqual({ pk: 'APIKEY#abc', sk: 'APIKEY' });
    expect(keys.app('a1')).toEqual({ pk: 'APP#a1', sk: 'APP' });
    expect(keys.subscription('s1')).toEqual({ pk: 'SUB#s1', sk: 'SUB' });
    expect(keys.license('K-1')).toEqual({ pk: 'LIC#K-1', sk: 'LIC' });
  });

  it('keeps the per-app indexes and blacklist in the app partition, next to the app item', () => {
    expect(keys.hwid('a1', 'dev')).toEqual({ pk: 'APP#a1', sk: 'HWID#dev' });
    expect(keys.blacklist('a1', 'ip', '1.2.3.4')).toEqual({ pk: 'APP#a1', sk: 'BL#ip#1.2.3.4' });
    expect(keys.hwid('a1', 'x').pk).toBe(keys.app('a1').pk);
  });

  it('lower-cases usernames so uniqueness ignores case', () => {
    expect(keys.username('a1', 'Alice')).toEqual(keys.username('a1', 'alice'));
    expect(keys.username('a1', 'Alice').sk).toBe('USER#alice');
  });

  it('sorts an app’s licenses by creation time, ties broken by key', () => {
    const early = keys.licenseByApp('a1', '2026-01-01T00:00:00.000Z', 'ZZZ');
    const late = keys.licenseByApp('a1', '2026-01-02T00:00:00.000Z', 'AAA');
    expect(early.gsi2pk).toBe(late.gsi2pk);
    expect(early.gsi2sk < late.gsi2sk).toBe(true);
  });

  it('reads a license’s place in that order back from its keys, and refuses keys of anything else', () => {
    const item = { ...keys.license('K#1-x'), ...keys.licenseByApp('a1', '2026-01-01T00:00:00.000Z', 'K#1-x') };
    expect(keys.licensePosition(item)).toEqual({ createdAt: '2026-01-01T00:00:00.000Z', licenseKey: 'K#1-x' });
    expect(() => keys.licensePosition({ ...keys.subscription('s1'), ...keys.subscriptionByApp('a1', '2026-01-01T00:00:00.000Z', 's1') })).toThrow();
    expect(() => keys.licensePosition({ ...keys.license('K1'), gsi2sk: '2026-01-01T00:00:00.000Z#K2' })).toThrow();
  });

  it('reads back the place of a key stored under its team, saying so', () => {
    const item = { ...keys.license('ACME-1', 'team-1'), ...keys.licenseByApp('a1', '2026-01-01T00:00:00.000Z', 'ACME-1') };
    expect(keys.licensePosition(item)).toEqual({ createdAt: '2026-01-01T00:00:00.000Z', licenseKey: 'ACME-1', keyScope: 'team' });
    expect(() => keys.licensePosition({ ...keys.license('ACME-1', 'team-1'), gsi2sk: '2026-01-01T00:00:00.000Z#ACME-2' })).toThrow();
  });

  it('keeps a team’s custom keys apart from the shared namespace and from other teams', () => {
    const [shared, scoped] = keys.licenseCandidates('ACME-1', 'team-1');
    expect(shared).toEqual(keys.license('ACME-1'));
    expect(scoped).toEqual(keys.license('ACME-1', 'team-1'));
    expect(scoped).not.toEqual(keys.license('ACME-1', 'team-2'));
    expect(keys.licenseOf({ key: 'ACME-1', team_id: 'team-1', key_scope: 'team' })).toEqual(scoped);
    expect(keys.licenseOf({ key: 'ACME-1', team_id: 'team-1' })).toEqual(shared);
  });

  it('scopes idempotency records to owner, route and license', () => {
    const scope = { ownerRequestId: 'r1', gatewayRequestId: 'g1' };
    expect(keys.bulkMarker('t1', '/license/extend-bulk', scope, 'K1')).not.toEqual(keys.bulkMarker('t2', '/license/extend-bulk', scope, 'K1'));
    expect(keys.bulkMarker('t1', '/license/extend-bulk', scope, 'K1')).not.toEqual(keys.bulkMarker('t1', '/license/extend-bulk', scope, 'K2'));
  });

  it('keeps markers of requests without request_id apart from the owner’s own request_ids', () => {
    const owners = keys.bulkMarker('t1', '/license/extend-bulk', { ownerRequestId: 'g1', gatewayRequestId: 'x' }, 'K1');
    const gateways = keys.bulkMarker('t1', '/license/extend-bulk', { gatewayRequestId: 'g1' }, 'K1');
    expect(owners).not.toEqual(gateways);
  });
});

describe('table definition', () => {
  it('declares every key attribute of the table and its indexes as a string', () => {
    const input = createTableInput('licensing');
    expect(input.AttributeDefinitions).toEqual(
      ['pk', 'sk', 'gsi1pk', 'gsi1sk', 'gsi2pk', 'gsi2sk'].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
    );
    expect(input.BillingMode).toBe('PAY_PER_REQUEST');
    expect(input.GlobalSecondaryIndexes?.map((index) => [index.IndexName, index.Projection])).toEqual([
      ['gsi1', { ProjectionType: 'ALL' }],
      ['gsi2', { ProjectionType: 'INCLUDE', NonKeyAttributes: ['status', 'subscription_id', 'tags'] }],
    ]);
    expect(tableDefinition.timeToLiveAttribute).toBe('ttl');
  });
});
