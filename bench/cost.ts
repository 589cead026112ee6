import { randomUUID } from 'node:crypto';
import type { ClientApi } from '../lib/settings';
import { hostedServices, prices, type ListPrice, type Prices } from './prices';

/** What one request of an operation did, as the benchmark measured it, and the function that served it as deployed. */
export interface CostInputs {
  /** The API Gateway API the request went through: the REST API, or the HTTP API of clientApi=http. */
  front_door: ClientApi;
  /** Bytes of the request's body and of its answer's: an HTTP API bills each 512 KB as a request. */
  payload_bytes: number;
  read_units: number;
  write_units: number;
  /** Median wall time of the request in the local server (loopback, this machine's CPU): what Lambda would bill, as near as this run can tell. */
  duration_ms: number;
  memory_mb: number;
  architecture: string;
  tracing: boolean;
  /** The share of requests X-Ray records: the stage's sampling rule as synthesized, or X-Ray's default rule without one. */
  trace_sample_rate: number;
  /** Bytes the function wrote to stdout and stderr for the request, measured. */
  handler_log_bytes: number;
  /** Bytes of the stage's access-log line for the request: the deployed format with this request's values. */
  access_log_bytes: number;
  /** Bytes of Lambda's own JSON lines for an invocation (start, report) ingested: their documented shape at system log level INFO, none at WARN. */
  platform_log_bytes: number;
}

export interface CostPerMillion {
  total_usd: number;
  parts: {
    api_gateway_usd: number;
    lambda_requests_usd: number;
    lambda_duration_usd: number;
    dynamodb_reads_usd: number;
    dynamodb_writes_usd: number;
    logs_usd: number;
    xray_usd: number;
  };
  inputs: CostInputs & { billed_ms: number; log_bytes: number; api_requests_billed: number };
}

const million = 1e6;
/** Four decimals: a hundredth of a cent per million is below what any price here is known to. */
const rounded = (usd: number) => Math.round(usd * 10000) / 10000;

/** Dollars per million requests of one operation at list prices: each part from a measured quantity and one price of bench/prices.ts. */
export function costPerMillion(inputs: CostInputs, list: Prices = prices): CostPerMillion {
  if (inputs.architecture !== 'arm64') throw new Error(`no Lambda price here for ${inputs.architecture}`);
  // Lambda bills duration in 1 ms steps, rounded up.
  const billedMs = Math.max(1, Math.ceil(inputs.duration_ms));
  const logBytes = inputs.handler_log_bytes + inputs.access_log_bytes + inputs.platform_log_bytes;
  // Whether an HTTP API meters the answer too is not said: counting it can only overstate the price.
  const apiRequests = inputs.front_door === 'rest' ? 1 : Math.max(1, Math.ceil(inputs.payload_bytes / list.api_gateway_http_request_bytes));
  const apiPrice = inputs.front_door === 'rest' ? list.api_gateway_rest_request : list.api_gateway_http_request;
  const parts = {
    api_gateway_usd: million * apiRequests * apiPrice.usd,
    lambda_requests_usd: million * list.lambda_request.usd,
    lambda_duration_usd: million * (billedMs / 1000) * (inputs.memory_mb / 1024) * list.lambda_arm64_gb_second.usd,
    dynamodb_reads_usd: million * inputs.read_units * list.dynamodb_read_request_unit.usd,
    dynamodb_writes_usd: million * inputs.write_units * list.dynamodb_write_request_unit.usd,
    logs_usd: ((million * logBytes) / 2 ** 30) * list.cloudwatch_logs_ingestion_gb.usd,
    xray_usd: inputs.tracing ? million * inputs.trace_sample_rate * list.xray_trace_recorded.usd : 0,
  };
  const total = Object.values(parts).reduce((sum, part) => sum + part, 0);
  return {
    total_usd: rounded(total),
    parts: Object.fromEntries(Object.entries(parts).map(([name, usd]) => [name, rounded(usd)])) as CostPerMillion['parts'],
    inputs: { ...inputs, billed_ms: billedMs, log_bytes: logBytes, api_requests_billed: apiRequests },
  };
}

/**
 * A stage's access-log line for one request: the deployed format (read from
 * the synthesized stack, the REST API's or the HTTP API's) with each `$context`
 * variable given a value of the size it has on AWS (`-` for an error there is
 * none of); unknown variables keep their name's length.
 */
export function accessLogBytes(format: string | undefined, request: { path: string; status: number; responseBytes: number }): number {
  if (format === undefined) return 0;
  const values: Record<string, string> = {
    '$context.requestId': randomUUID(),
    '$context.extendedRequestId': 'AbCdEfGhIjKlMnO=',
    '$context.identity.sourceIp': '203.0.113.200',
    '$context.identity.caller': '-',
    '$context.identity.user': '-',
    '$context.requestTime': '24/Nov/2026:01:03:52 +0000',
    '$context.httpMethod': 'POST',
    '$context.resourcePath': request.path,
    '$context.routeKey': `POST ${request.path}`,
    '$context.integrationErrorMessage': '-',
    '$context.status': String(request.status),
    '$context.protocol': 'HTTP/1.1',
    '$context.responseLength': String(request.responseBytes),
  };
  const line = format.replace(/\$context\.[A-Za-z.]+/g, (name) => values[name] ?? name);
  return Buffer.byteLength(line) + 1;
}

/**
 * Lambda's own lines per invocation with the JSON log format the stack sets:
 * `platform.start` and `platform.report`, built in their documented shape with
 * values of AWS's sizes (a trace header when tracing is on). Not measured: no
 * Lambda runs here. At system log level WARN Lambda sends neither.
 */
export function platformLogBytes(options: { memoryMb: number; durationMs: number; tracing: boolean; systemLogLevel: string }): number {
  if (!['DEBUG', 'INFO'].includes(options.systemLogLevel)) return 0;
  const requestId = randomUUID();
  const time = '2026-11-24T01:03:52.214Z';
  const tracing = options.tracing
    ? { tracing: { spanId: '1a2b3c4d5e6f7a8b', type: 'X-Amzn-Trace-Id', value: 'Root=1-6742f1a8-0123456789abcdef01234567;Parent=1a2b3c4d5e6f7a8b;Sampled=0;Lineage=1:abcdef12:0' } }
    : {};
  const start = { time, type: 'platform.start', record: { requestId, version: '$LATEST', ...tracing } };
  const report = {
    time,
    type: 'platform.report',
    record: {
      requestId,
      metrics: { durationMs: options.durationMs, billedDurationMs: Math.ceil(options.durationMs), memorySizeMB: options.memoryMb, maxMemoryUsedMB: 98 },
      ...tracing,
      status: 'success',
    },
  };
  return [start, report].reduce((sum, line) => sum + Buffer.byteLength(JSON.stringify(line)) + 1, 0);
}

const labels: Record<keyof CostPerMillion['parts'], string> = {
  api_gateway_usd: 'API Gateway',
  lambda_requests_usd: 'Lambda requests',
  lambda_duration_usd: 'Lambda duration',
  dynamodb_reads_usd: 'DynamoDB reads',
  dynamodb_writes_usd: 'DynamoDB writes',
  logs_usd: 'Logs',
  xray_usd: 'X-Ray',
};

/** The cost table of docs/performance.md: one row per operation, its parts, then the prices and the hosted services beside them. */
export function renderCost(costs: Record<string, CostPerMillion>, operationLabels: Record<string, string>, list: Prices = prices): string[] {
  const parts = Object.keys(labels) as (keyof CostPerMillion['parts'])[];
  const first = Object.values(costs)[0];
  // Two decimals in the table (bench/results.json keeps four): a cent per million is finer than any price here is known to.
  const usd = (value: number) => value.toFixed(2);
  const lines = [
    `Cost per million requests at list prices (${list.region}; every function ${first ? `${first.inputs.memory_mb} MB ${first.inputs.architecture}, X-Ray ${first.inputs.tracing ? `on, ${first.inputs.trace_sample_rate * 100} % of requests traced` : 'off'}, Lambda's start and report lines ${first.inputs.platform_log_bytes ? 'ingested' : 'not ingested'}` : ''}, as the stack deploys by default):`,
    '',
    `| Operation | RRU / WRU | ms billed | log bytes | ${parts.map((part) => `${labels[part]} $`).join(' | ')} | **Total $ per million** |`,
    `|---|---:|---:|---:|${parts.map(() => '---:').join('|')}|---:|`,
    ...Object.entries(costs).map(
      ([name, cost]) =>
        `| ${operationLabels[name] ?? name} | ${cost.inputs.read_units} / ${cost.inputs.write_units} | ${cost.inputs.billed_ms} | ${cost.inputs.log_bytes} | ${parts.map((part) => usd(cost.parts[part])).join(' | ')} | **${usd(cost.total_usd)}** |`,
    ),
    '',
    '| Price | US$ | per | source | as known on | note |',
    '|---|---:|---|---|---|---|',
    ...Object.entries(list)
      .flatMap(([name, price]) => (typeof price === 'object' ? [[name, price as ListPrice] as const] : []))
      .map(([name, price]) => `| ${name} | ${price.usd.toLocaleString('en', { maximumSignificantDigits: 6 })} | ${price.per} | ${price.source} | ${price.as_known_on} | ${price.note ?? ''} |`),
    ...(first?.inputs.tracing
      ? [`| share of requests traced | ${first.inputs.trace_sample_rate} | request | the stack's sampling rule (\`tracingSampleRate\`), read from the synthesized template | | no reservoir: the same share at any volume |`]
      : []),
    '',
    '| Hosted service | Pricing model | Figure | Source | As known on |',
    '|---|---|---|---|---|',
    ...hostedServices.map((service) => `| ${service.name} | ${service.model} | ${service.figure} | ${service.source} | ${service.as_known_on} |`),
  ];
  return lines;
}

/**
 * The client routes' cost through each front door (clientApi): the same measured operation priced
 * through the REST API and through the HTTP API, and the latter with CloudFront and a web ACL in
 * front of it (their request prices only), for docs/deployment.md#two-front-doors-for-client-routes.
 */
export function renderFrontDoors(
  rest: Record<string, CostPerMillion>,
  http: Record<string, CostPerMillion>,
  operationLabels: Record<string, string>,
  list: Prices = prices,
): string[] {
  const usd = (value: number) => value.toFixed(2);
  const inFront = million * (list.cloudfront_https_request.usd + list.waf_request.usd);
  return [
    `Client routes through each front door (\`clientApi\`), per million warm requests: the same units, durations and logs of the service as above, each door with its own API price, access-log line and tracing (with \`http\` the client function is not traced); CloudFront and a web ACL in front of the HTTP API add their request prices ($${usd(inFront)} per million), not their monthly fees or data transfer:`,
    '',
    '| Operation | REST API (`rest`) $ | HTTP API (`http`) $ | API Gateway $, REST / HTTP | access-log bytes, REST / HTTP | X-Ray $, REST / HTTP | HTTP API behind CloudFront and WAF $ |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...Object.entries(http).map(([name, door]) => {
      const base = rest[name]!;
      return `| ${operationLabels[name] ?? name} | **${usd(base.total_usd)}** | **${usd(door.total_usd)}** | ${usd(base.parts.api_gateway_usd)} / ${usd(door.parts.api_gateway_usd)} | ${base.inputs.access_log_bytes} / ${door.inputs.access_log_bytes} | ${usd(base.parts.xray_usd)} / ${usd(door.parts.xray_usd)} | ${usd(door.total_usd + inFront)} |`;
    }),
  ];
}
