import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An answer as it passes the proxy; a tamper may change any part of it. */
export interface Intercepted {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** What the proxy saw of a request. */
export interface SeenRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/**
 * What to do with one exchange once the service answered: return the answer to
 * send (changed or not), or `'drop'` to cut the connection without answering
 * (the answer is lost after the service acted).
 */
export type Tamper = (answer: Intercepted, request: SeenRequest) => Intercepted | 'drop';

export interface InterceptingProxy {
  url: string;
  requests: SeenRequest[];
  /** The tamper for the exchanges to come; `undefined` forwards unchanged. */
  tamper: Tamper | undefined;
  /** Changes a request before it is forwarded, as a relaying proxy holding another license does. */
  rewrite: ((request: SeenRequest) => SeenRequest) | undefined;
  /** Whether to cut a request's connection before forwarding it, as a network that is down does. */
  refuse: ((request: SeenRequest) => boolean) | undefined;
  /** An answer of the proxy's own instead of forwarding (a gateway's error, a replayed answer); `undefined` goes on. */
  respond: ((request: SeenRequest) => Intercepted | undefined | Promise<Intercepted | undefined>) | undefined;
  close(): Promise<void>;
}

const hopByHop = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length']);

/** A proxy on loopback in front of `target` that hands answers to `tamper`, as a cracked machine's local proxy would. */
export async function startInterceptingProxy(target: string): Promise<InterceptingProxy> {
  const proxy: InterceptingProxy = { url: '', requests: [], tamper: undefined, rewrite: undefined, refuse: undefined, respond: undefined, close: async () => undefined };
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const seen: SeenRequest = { path: request.url ?? '/', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') };
    proxy.requests.push(seen);
    const own = await proxy.respond?.(seen);
    if (own) {
      response.writeHead(own.status, { ...own.headers, 'content-length': String(own.body.length) });
      response.end(own.body);
      return;
    }
    if (proxy.refuse?.(seen)) {
      request.socket.destroy();
      return;
    }
    const sent = proxy.rewrite ? proxy.rewrite(seen) : seen;
    const forwarded = await fetch(`${target}${sent.path}`, {
      method: request.method,
      headers: Object.fromEntries(Object.entries(sent.headers).filter(([name]) => !hopByHop.has(name) && name !== 'host')) as Record<string, string>,
      body: request.method === 'POST' ? sent.body : undefined,
      signal: AbortSignal.timeout(10_000),
    }).catch(() => undefined);
    // The service is down or did not answer in time: the client sees the connection cut, as through a real proxy.
    if (!forwarded) {
      request.socket.destroy();
      return;
    }
    const headers: Record<string, string> = {};
    forwarded.headers.forEach((value, name) => {
      if (!hopByHop.has(name)) headers[name] = value;
    });
    const original: Intercepted = { status: forwarded.status, headers, body: Buffer.from(await forwarded.arrayBuffer()) };
    const outcome = proxy.tamper ? proxy.tamper(original, seen) : original;
    if (outcome === 'drop') {
      request.socket.destroy();
      return;
    }
    response.writeHead(outcome.status, { ...outcome.headers, 'content-length': String(outcome.body.length) });
    response.end(outcome.body);
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () =>
    new Promise<void>((closed) => {
      server.closeAllConnections();
      server.close(() => closed());
    });
  return proxy;
}
