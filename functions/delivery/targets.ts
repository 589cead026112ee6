import { request as httpRequest, type Agent, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';
import type { TargetPolicy } from '#core/deps';
import { loopback, metadataAddress, targetProblem } from './target-policy';

/**
 * The check on the address actually connected to: request-filtering-agent
 * validates the address the name resolved to, in the connection's own lookup,
 * so a name that resolves to a refused address (or changes its answer between
 * a check and the connection) is refused too.
 */
const agents: Record<TargetPolicy, { http?: Agent; https: Agent }> = {
  public: { https: new RequestFilteringHttpsAgent({ keepAlive: false, denyIPAddressList: [metadataAddress] }) },
  local: {
    http: new RequestFilteringHttpAgent({ keepAlive: false, allowIPAddressList: loopback, denyIPAddressList: [metadataAddress] }),
    https: new RequestFilteringHttpsAgent({ keepAlive: false, allowIPAddressList: loopback, denyIPAddressList: [metadataAddress] }),
  },
};

export interface Attempt {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface AttemptResult {
  /** A 2xx arrived, and the answer ended (or filled the excerpt) within the time. */
  ok: boolean;
  status: number | null;
  /** A short excerpt of what went wrong: never more than `excerptBytes` of the receiver's body. */
  error: string | null;
}

/** What is read of a receiver's answer: the rest is never read, so a huge answer costs nothing more. */
export const excerptBytes = 256;

const printable = (bytes: Buffer) => bytes.toString('utf8').replace(/[^\x20-\x7e]+/g, ' ').trim();

/**
 * One POST, bounded: `timeoutMs` for everything from the connection to the
 * answer's end; a redirect is an answer like any other (not followed, and
 * not 2xx); a receiver that closes before its answer ends has failed.
 */
export function postOnce(attempt: Attempt, policy: TargetPolicy, timeoutMs: number): Promise<AttemptResult> {
  const problem = targetProblem(attempt.url, policy);
  if (problem) return Promise.resolve({ ok: false, status: null, error: `target refused: the URL ${problem}` });
  const url = new URL(attempt.url);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const agent = url.protocol === 'https:' ? agents[policy].https : agents[policy].http!;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: AttemptResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
      request.destroy();
    };
    const request = send(
      url,
      { method: 'POST', agent, headers: { ...attempt.headers, 'content-length': Buffer.byteLength(attempt.body) } },
      (response: IncomingMessage) => {
        const status = response.statusCode ?? null;
        const chunks: Buffer[] = [];
        let read = 0;
        const done = () => {
          const excerpt = printable(Buffer.concat(chunks).subarray(0, excerptBytes));
          const ok = status !== null && status >= 200 && status < 300;
          const redirect = status !== null && status >= 300 && status < 400 ? ' (redirects are not followed)' : '';
          finish({ ok, status, error: ok ? null : `HTTP ${status}${redirect}${excerpt ? `: ${excerpt}` : ''}` });
        };
        response.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          read += chunk.length;
          if (read >= excerptBytes) done();
        });
        response.on('end', done);
        response.on('error', () => finish({ ok: false, status, error: 'the receiver closed the connection before its answer ended' }));
        response.on('aborted', () => finish({ ok: false, status, error: 'the receiver closed the connection before its answer ended' }));
      },
    );
    const timer = setTimeout(() => finish({ ok: false, status: null, error: `no complete answer within ${timeoutMs / 1000} s` }), timeoutMs);
    request.on('error', (error: Error) => finish({ ok: false, status: null, error: describe(error) }));
    request.end(attempt.body);
  });
}

function describe(error: Error): string {
  if (/is not allowed/.test(error.message)) return `target refused: ${error.message.replace(/^DNS lookup /, '').slice(0, 200)}`;
  if (error.message === 'socket hang up') return 'the receiver closed the connection before answering';
  return error.message.slice(0, 200);
}
