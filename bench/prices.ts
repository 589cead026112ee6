/**
 * List prices the benchmark turns measured work into dollars with
 * (docs/performance.md#cost-per-million-requests). Region us-east-1, US dollars,
 * the first (dearest) volume tier of each, no free tier. Each price is the one
 * known to this file's author on `as_known_on` from the page named, not read
 * from the page when the benchmark runs (it runs offline): check the page
 * before relying on a figure, and change it here with its date when it moves.
 */
export interface ListPrice {
  usd: number;
  per: string;
  source: string;
  as_known_on: string;
  note?: string;
}

const knownOn = '2025-01';

export const prices = {
  region: 'us-east-1',
  api_gateway_rest_request: {
    usd: 3.5 / 1e6,
    per: 'request',
    source: 'https://aws.amazon.com/api-gateway/pricing/',
    as_known_on: knownOn,
    note: 'REST API, first 333 million requests a month; data transfer out not included',
  },
  api_gateway_http_request: {
    usd: 1 / 1e6,
    per: 'request, each 512 KB of it',
    source: 'https://aws.amazon.com/api-gateway/pricing/',
    as_known_on: knownOn,
    note: 'HTTP API (clientApi=http), first 300 million requests a month, metered in 512 KB increments; data transfer out not included',
  },
  /** The HTTP API's metering step, taken as 512 × 1024 bytes. */
  api_gateway_http_request_bytes: 512 * 1024,
  cloudfront_https_request: {
    usd: 0.01 / 1e4,
    per: 'HTTPS request',
    source: 'https://aws.amazon.com/cloudfront/pricing/',
    as_known_on: knownOn,
    note: '$0.0100 per 10,000, edge locations in the United States, Mexico and Canada (dearer elsewhere); in front of the HTTP API for a web ACL; data transfer not included',
  },
  waf_request: {
    usd: 0.6 / 1e6,
    per: 'request inspected',
    source: 'https://aws.amazon.com/waf/pricing/',
    as_known_on: knownOn,
    note: 'plus $5.00 a month per web ACL and $1.00 a month per rule',
  },
  lambda_arm64_gb_second: {
    usd: 0.0000133334,
    per: 'GB-second',
    source: 'https://aws.amazon.com/lambda/pricing/',
    as_known_on: knownOn,
    note: 'Arm (Graviton2), first 7.5 billion GB-seconds a month; duration billed in 1 ms steps',
  },
  lambda_request: {
    usd: 0.2 / 1e6,
    per: 'request',
    source: 'https://aws.amazon.com/lambda/pricing/',
    as_known_on: knownOn,
  },
  dynamodb_read_request_unit: {
    usd: 0.125 / 1e6,
    per: 'read request unit',
    source: 'https://aws.amazon.com/dynamodb/pricing/on-demand/',
    as_known_on: knownOn,
    note: 'on-demand, Standard table class, after the price cut of November 2024',
  },
  dynamodb_write_request_unit: {
    usd: 0.625 / 1e6,
    per: 'write request unit',
    source: 'https://aws.amazon.com/dynamodb/pricing/on-demand/',
    as_known_on: knownOn,
    note: 'on-demand, Standard table class, after the price cut of November 2024',
  },
  cloudwatch_logs_ingestion_gb: {
    usd: 0.5,
    per: 'GB ingested (2^30 bytes)',
    source: 'https://aws.amazon.com/cloudwatch/pricing/',
    as_known_on: knownOn,
    note: 'Standard log class, first tier (Lambda logs are tiered from 10 TB a month); storage not included',
  },
  xray_trace_recorded: {
    usd: 5 / 1e6,
    per: 'trace recorded',
    source: 'https://aws.amazon.com/xray/pricing/',
    as_known_on: knownOn,
    note: 'traces retrieved or scanned are billed apart and not included',
  },
  /**
   * X-Ray's default sampling rule, which applies only to a stack without a rule of its own for
   * the stage (the stack makes one, `tracingSampleRate`): the first request each second (the
   * reservoir) and 5 % of the rest. Per million requests that is 5 % of them; the reservoir adds
   * at most one trace a second whatever the volume, a flat cost not counted here.
   */
  xray_default_sampled_fraction: 0.05,
} as const satisfies Record<string, ListPrice | string | number>;

export type Prices = typeof prices;

/**
 * What hosted licensing services publish about their prices, for comparison
 * beside the cost table: only what this file's author knew on `as_known_on`,
 * said as such; a figure not known here is not guessed.
 */
export const hostedServices: { name: string; model: string; figure: string; source: string; as_known_on: string }[] = [
  {
    name: 'Keygen Cloud',
    model: 'monthly plans by active licensed users (ALUs); validations are not billed one by one',
    figure: 'tier prices not known here with confidence: see the page',
    source: 'https://keygen.sh/pricing/',
    as_known_on: knownOn,
  },
  {
    name: 'Cryptolens',
    model: 'monthly plans with feature and usage tiers',
    figure: 'not known here with confidence: see the page',
    source: 'https://cryptolens.io/pricing/',
    as_known_on: knownOn,
  },
  {
    name: 'LicenseSpring',
    model: 'monthly or yearly plans by tier',
    figure: 'not known here with confidence: see the page',
    source: 'https://licensespring.com/pricing',
    as_known_on: knownOn,
  },
  {
    name: 'KeyAuth',
    model: 'seller subscriptions by period',
    figure: 'not known here with confidence: see the page',
    source: 'https://keyauth.cc/',
    as_known_on: knownOn,
  },
];
