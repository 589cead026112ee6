import { execFile } from 'node:child_process';

/** What a program run by a test did. */
export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

// libcurl honours the proxy variables, as a program's users expect: loopback must never leave through one.
const noProxy = { NO_PROXY: '127.0.0.1,localhost', no_proxy: '127.0.0.1,localhost' };

/**
 * Runs a build tool or a built program of a native client library's suite to its end,
 * whatever its exit code; one that could not start (not installed: see .ci/run) says so in stderr.
 */
export function runProgram(command: string, args: string[], options: { env?: Record<string, string>; cwd?: string; timeout: number }): Promise<Ran> {
  return new Promise((done) => {
    execFile(command, args, { cwd: options.cwd, env: { ...process.env, ...noProxy, ...options.env }, timeout: options.timeout, maxBuffer: 32 * 1024 * 1024 }, (error, stdout, stderr) =>
      done({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr: error && typeof error.code !== 'number' ? `${stderr}${error.message}` : stderr }),
    );
  });
}
