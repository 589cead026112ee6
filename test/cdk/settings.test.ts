import { readSettings, SettingsError, trustedViewerHeaders } from '../../lib/settings';

const from = (context: Record<string, unknown>) => readSettings((key) => context[key]);

describe('readSettings', () => {
  it('gives a production stage with documented defaults when no context is set', () => {
    expect(from({})).toEqual({
      stage: 'prod',
      endpointType: 'edge',
      clientApi: 'rest',
      cloudFrontOriginSecret: undefined,
      clientRateLimit: 100,
      clientBurstLimit: 200,
      stripeWebhookRateLimit: 25,
      stripeWebhookBurstLimit: 50,
      managementRateLimit: 100,
      managementBurstLimit: 500,
      managementQuotaPerDay: 0,
      authorizerCacheTtlSeconds: 300,
      bcryptCost: 10,
      logLevel: 'info',
      cacheTtlSeconds: 5,
      debug: false,
      lambdaMemoryMb: 512,
      logRetentionDays: 30,
      executionLogRetentionDays: 30,
      enableWaf: false,
      wafRateLimitPerIp: 1000,
      wafClientRateLimitPerIp: 300,
      authorizerReservedConcurrency: 0,
      clientReservedConcurrency: 0,
      managementReservedConcurrency: 0,
      alarmEmail: undefined,
      tracing: true,
      tracingSampleRate: 0.001,
      dashboard: true,
      managementCorsOrigin: undefined,
      auditRetentionDays: 90,
      portal: true,
      portalDomainName: undefined,
      portalCertificateArn: undefined,
    });
  });

  it('reads command-line strings and cdk.json numbers and booleans alike', () => {
    const fromCommandLine = from({ clientRateLimit: '20', enableWaf: 'true', bcryptCost: '12', tracingSampleRate: '0.05' });
    const fromCdkJson = from({ clientRateLimit: 20, enableWaf: true, bcryptCost: 12, tracingSampleRate: 0.05 });
    expect(fromCommandLine).toEqual(fromCdkJson);
    expect(fromCommandLine).toMatchObject({ clientRateLimit: 20, enableWaf: true, bcryptCost: 12, tracingSampleRate: 0.05 });
  });

  it.each([
    [{ stage: 'prod/v2' }, /stage/],
    [{ stage: 'my_stage' }, /context stage must be 1 to 64 letters, digits or "-"/],
    [{ cloudFrontOriginSecret: 'short' }, /cloudFrontOriginSecret must be 32 to 256/],
    [{ cloudFrontOriginSecret: 'a'.repeat(32) }, /cloudFrontOriginSecret needs endpointType=regional/],
    [{ clientApi: 'websocket' }, /context clientApi must be one of rest, http, got "websocket"/],
    [{ endpointType: 'regional', cloudFrontOriginSecret: 'a'.repeat(32), clientApi: 'http' }, /cloudFrontOriginSecret cannot be combined with clientApi=http: an HTTP API takes no web ACL/],
    [{ clientReservedConcurrency: '-1' }, /clientReservedConcurrency must be an integer from 0/],
    [{ clientRateLimit: '0' }, /clientRateLimit must be an integer from 1/],
    [{ bcryptCost: '3' }, /bcryptCost must be an integer from 4 to 15/],
    [{ logLevel: 'verbose' }, /logLevel must be one of/],
    [{ enableWaf: 'yes' }, /enableWaf must be true or false/],
    [{ tracing: 'on' }, /tracing must be true or false/],
    [{ tracingSampleRate: '5%' }, /tracingSampleRate must be a number from 0 to 1, got "5%"/],
    [{ tracingSampleRate: '1.5' }, /tracingSampleRate must be a number from 0 to 1/],
    [{ tracingSampleRate: '-0.1' }, /tracingSampleRate must be a number from 0 to 1/],
    [{ logRetentionDays: '10' }, /logRetentionDays must be one of/],
    [{ executionLogRetentionDays: '2' }, /executionLogRetentionDays must be one of/],
    [{ endpointType: 'private' }, /endpointType must be one of edge, regional/],
    [{ alarmEmail: 'ops' }, /alarmEmail must be an email address/],
    [{ managementRateLimit: { rate: 1 } }, /managementRateLimit must be a string, number or boolean/],
    [{ managementCorsOrigin: 'https://admin.example.com/' }, /managementCorsOrigin must be \* or an origin/],
    [{ managementCorsOrigin: 'admin.example.com' }, /managementCorsOrigin must be \* or an origin/],
  ])('rejects %o naming the key', (context, message) => {
    expect(() => from(context)).toThrow(SettingsError);
    expect(() => from(context)).toThrow(message);
  });

  it('takes * or one origin as managementCorsOrigin', () => {
    expect(from({ managementCorsOrigin: '*' }).managementCorsOrigin).toBe('*');
    expect(from({ managementCorsOrigin: 'https://admin.example.com:8443' }).managementCorsOrigin).toBe('https://admin.example.com:8443');
  });

  it('takes every stage name it accepts into a valid CloudFormation stack name', () => {
    for (const stage of ['prod', 'staging-2', 'A', '1st', 'x'.repeat(64)]) {
      expect(`Licensing-${from({ stage }).stage}`).toMatch(/^[A-Za-z][A-Za-z0-9-]{0,127}$/);
    }
  });

  it('trusts a CloudFront viewer header only where a CloudFront that sets it stands in front of every request', () => {
    expect(trustedViewerHeaders(from({}))).toEqual(['country']);
    expect(trustedViewerHeaders(from({ endpointType: 'regional' }))).toEqual([]);
    expect(trustedViewerHeaders(from({ endpointType: 'regional', cloudFrontOriginSecret: 's'.repeat(40) }))).toEqual(['country', 'asn']);
  });

  it('trusts no viewer header with the HTTP API, which anyone may call directly with any header', () => {
    expect(trustedViewerHeaders(from({ clientApi: 'http' }))).toEqual([]);
    expect(trustedViewerHeaders(from({ clientApi: 'http', endpointType: 'regional' }))).toEqual([]);
  });
});
