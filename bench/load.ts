import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Result } from 'autocannon';

const run = promisify(execFile);

export interface LoadRequest {
  path: string;
  body: string;
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
  /** Taken in turn across all connections, from the first again after the last. */
  requests: LoadRequest[];
  headers?: Record<string, string>;
  connections: number;
  /** Requests in all; the run also stops at maxSeconds, whichever comes first. */
  amount: number;
  maxSeconds: number;
}

const benchDir = import.meta.dirname;

/** A bounded load over loopback from a child process (bench/load-generator.mjs), killed if it overruns. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  // bench/.out is git-ignored, so a fresh clone does not have it.
  const outDir = join(benchDir, '.out');
  mkdirSync(outDir, { recursive: true });
  const optionsFile = join(outDir, `load-${process.pid}.json`);
  writeFileSync(optionsFile, JSON.stringify(options));
  const { stdout } = await run(process.execPath, [join(benchDir, 'load-generator.mjs'), optionsFile], {
    timeout: (options.maxSeconds + 30) * 1000,
    maxBuffer: 16 * 1024 * 1024,
  });
  const result = JSON.parse(stdout) as Result;
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
