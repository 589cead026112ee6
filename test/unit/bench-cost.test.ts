import { accessLogBytes, costPerMillion, platformLogBytes, renderFrontDoors } from '../../bench/cost';
import { prices } from '../../bench/prices';

describe('the benchmark\'s cost per million requests', () => {
  const warmAuth = {
    front_door: 'rest' as const,
    payload_bytes: 900,
    read_units: 0.5,
    write_units: 1,
    duration_ms: 9.2,
    memory_mb: 512,
    architecture: 'arm64',
    tracing: true,
    trace_sample_rate: 0.05,
    handler_log_bytes: 0,
    access_log_bytes: 300,
    platform_log_bytes: 700,
  };

  it('prices each part from one measured quantity and one list price, duration rounded up to the millisecond', () => {
    const cost = costPerMillion(warmAuth);
    expect(cost.inputs.billed_ms).toBe(10);
    expect(cost.parts).toEqual({
      api_gateway_usd: 3.5,
      lambda_requests_usd: 0.2,
      lambda_duration_usd: 0.0667,
      dynamodb_reads_usd: 0.0625,
      dynamodb_writes_usd: 0.625,
      logs_usd: 0.4657,
      xray_usd: 0.25,
    });
    expect(cost.total_usd).toBeCloseTo(5.1699, 3);
  });

  it('counts X-Ray at the sampled share of requests, none without tracing, and refuses an architecture it has no price for', () => {
    expect(costPerMillion({ ...warmAuth, trace_sample_rate: 0.001 }).parts.xray_usd).toBe(0.005);
    expect(costPerMillion({ ...warmAuth, tracing: false }).parts.xray_usd).toBe(0);
    expect(() => costPerMillion({ ...warmAuth, architecture: 'x86_64' })).toThrow('x86_64');
  });

  it('prices the HTTP API at its own price, a request for each 512 KB it carries, and the REST API per request whatever its size', () => {
    expect(costPerMillion({ ...warmAuth, front_door: 'http' }).parts.api_gateway_usd).toBe(1);
    expect(costPerMillion({ ...warmAuth, front_door: 'http', payload_bytes: 512 * 1024 }).inputs.api_requests_billed).toBe(1);
    expect(costPerMillion({ ...warmAuth, front_door: 'http', payload_bytes: 512 * 1024 + 1 }).parts.api_gateway_usd).toBe(2);
    expect(costPerMillion({ ...warmAuth, payload_bytes: 3 * 1024 * 1024 }).parts.api_gateway_usd).toBe(3.5);
    const { api_gateway_usd: rest, ...others } = costPerMillion(warmAuth).parts;
    const { api_gateway_usd: http, ...same } = costPerMillion({ ...warmAuth, front_door: 'http' }).parts;
    expect(rest - http).toBe(2.5);
    expect(same).toEqual(others);
  });

  it('sets the front doors side by side for each client-route operation, CloudFront and WAF request prices added to the HTTP API\'s', () => {
    const rest = { auth: costPerMillion(warmAuth) };
    const http = { auth: costPerMillion({ ...warmAuth, front_door: 'http', tracing: false }) };
    const lines = renderFrontDoors(rest, http, { auth: '`/auth`' });
    expect(lines[0]).toContain('($1.60 per million)');
    expect(lines.at(-1)).toBe(`| \`/auth\` | **5.17** | **2.42** | 3.50 / 1.00 | 300 / 300 | 0.25 / 0.00 | 4.02 |`);
  });

  it('sizes an access-log line from the deployed format with the request\'s values', () => {
    const format = '{"requestId":"$context.requestId","status":"$context.status","responseLength":"$context.responseLength","path":"$context.resourcePath"}';
    const line = `{"requestId":"${'0'.repeat(36)}","status":"200","responseLength":"123","path":"/auth"}\n`;
    expect(accessLogBytes(format, { path: '/auth', status: 200, responseBytes: 123 })).toBe(Buffer.byteLength(line));
    expect(accessLogBytes(undefined, { path: '/auth', status: 200, responseBytes: 123 })).toBe(0);
    const httpFormat = '{"routeKey":"$context.routeKey","integrationError":"$context.integrationErrorMessage"}';
    expect(accessLogBytes(httpFormat, { path: '/usage', status: 200, responseBytes: 1 })).toBe(Buffer.byteLength('{"routeKey":"POST /usage","integrationError":"-"}\n'));
  });

  it("counts Lambda's start and report lines only at a system log level that sends them", () => {
    const invocation = { memoryMb: 512, durationMs: 9.2, tracing: true };
    expect(platformLogBytes({ ...invocation, systemLogLevel: 'INFO' })).toBeGreaterThan(platformLogBytes({ ...invocation, tracing: false, systemLogLevel: 'INFO' }));
    expect(platformLogBytes({ ...invocation, tracing: false, systemLogLevel: 'INFO' })).toBeGreaterThan(300);
    expect(platformLogBytes({ ...invocation, systemLogLevel: 'WARN' })).toBe(0);
  });

  it('names a source page and a date for every price', () => {
    for (const price of Object.values(prices).filter((value) => typeof value === 'object')) {
      expect(price).toEqual(expect.objectContaining({ source: expect.stringMatching(/^https:\/\/aws\.amazon\.com\//), as_known_on: expect.stringMatching(/^\d{4}-\d{2}/) }));
    }
  });
});
