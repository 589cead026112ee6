import autocannon from 'autocannon';

export interface LoadRequest {
  path: string;
  body: string;
  headers?: Record<string, string>;
}

export interface LoadResult {
  p50_ms: number;
  p99_ms: number;
  rps: number;
  requests: number;
  non_2xx: number;
  errors: number;
}

export interface LoadOptions {
  url: string;
  /** Cycled in order by every connection. */
  requests: LoadRequest[];
  connections: number;
  /** Requests in all; the run also stops at maxSeconds, whichever comes first. */
  amount: number;
  maxSeconds: number;
}

/**
 * A bounded load over loopback. autocannon runs in a worker thread so the load
 * generator does not share an event loop with the server under test.
 */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const instance = autocannon({
    url: options.url,
    connections: options.connections,
    // `amount` would override `duration`; maxOverallRequests lets whichever bound comes first end the run.
    maxOverallRequests: options.amount,
    duration: options.maxSeconds,
    workers: 1,
    timeout: 10,
    requests: options.requests.map((request) => ({
      method: 'POST',
      path: request.path,
      body: request.body,
      headers: { 'content-type': 'application/json', ...request.headers },
    })),
  } as autocannon.Options);
  const result = await instance;
  const completed = result.requests.total;
  return {
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    rps: Math.round((completed / Math.max(result.duration, 0.001)) * 10) / 10,
    requests: completed,
    non_2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}
