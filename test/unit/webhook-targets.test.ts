import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { targetProblem } from '../../functions/delivery/target-policy';
import { postOnce } from '../../functions/delivery/targets';

describe('which URLs can be webhook targets', () => {
  it.each([
    ['file:///etc/passwd', 'must be an https URL'],
    ['ftp://example.com/hook', 'must be an https URL'],
    ['http://example.com/hook', 'must be an https URL'],
    ['https://user:pass@example.com/hook', 'must not carry a user name or password'],
    ['https://169.254.169.254/latest/meta-data', 'must not point at a loopback, private, link-local, multicast or reserved address'],
    ['https://10.0.0.8/hook', 'must not point at a loopback, private, link-local, multicast or reserved address'],
    ['https://192.168.1.20/hook', 'must not point at a loopback, private, link-local, multicast or reserved address'],
    ['https://172.20.0.1/hook', 'must not point at a loopback, private, link-local, multicast or reserved address'],
    ['https://127.0.0.1/hook', 'must not point at a loopback, private, link-local, multicast or reserved address'],
    ['https://[::1]/hook', 'must not point at a loopback, private, link-local, multicast or reserved address'],
    ['https://[fd00::5]/hook', 'must not point at a loopback, private, link-local, multicast or reserved address'],
    ['https://224.0.0.1/hook', 'must not point at a loopback, private, link-local, multicast or reserved address'],
    ['https://100.64.0.1/hook', 'must not point at a loopback, private, link-local, multicast or reserved address'],
    ['https://[::ffff:10.0.0.1]/hook', 'must not point at a loopback, private, link-local, multicast or reserved address'],
  ])('on the deployed stack refuses %s: %s', (url, problem) => {
    expect(targetProblem(url, 'public')).toBe(problem);
  });

  it('on the deployed stack takes a public https URL (names are checked when connecting)', () => {
    expect(targetProblem('https://hooks.example.com/licensing', 'public')).toBeUndefined();
    expect(targetProblem('https://93.184.215.14/hook', 'public')).toBeUndefined();
  });

  it('in npm start also takes http and loopback, and still refuses the metadata address, private ranges and other schemes', () => {
    expect(targetProblem('http://127.0.0.1:8080/hook', 'local')).toBeUndefined();
    expect(targetProblem('http://[::1]:8080/hook', 'local')).toBeUndefined();
    expect(targetProblem('http://169.254.169.254/latest/meta-data', 'local')).toBe('must not point at a loopback, private, link-local, multicast or reserved address');
    expect(targetProblem('http://10.0.0.8/hook', 'local')).toBe('must not point at a loopback, private, link-local, multicast or reserved address');
    expect(targetProblem('file:///etc/passwd', 'local')).toBe('must be an https or http URL');
    expect(targetProblem('ftp://127.0.0.1/hook', 'local')).toBe('must be an https or http URL');
  });
});

describe('one attempt (postOnce)', () => {
  let server: Server;
  let port: number;
  let handler: (response: ServerResponse) => void;
  let requests = 0;

  beforeAll(async () => {
    server = createServer((request, response) => {
      requests += 1;
      request.resume();
      request.on('end', () => handler(response));
    });
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((closed) => server.close(() => closed()));
  });
  beforeEach(() => {
    requests = 0;
  });

  const attempt = { headers: { 'content-type': 'application/json' }, body: '{"id":"e-1"}' };
  const timed = async (run: () => Promise<unknown>) => {
    const started = Date.now();
    const result = await run();
    return { result, ms: Date.now() - started };
  };

  it('refuses a name that resolves to loopback under the deployed rules, before sending anything', async () => {
    handler = (response) => response.writeHead(204).end();
    const result = await postOnce({ ...attempt, url: `https://localhost:${port}/hook` }, 'public', 2000);
    expect(result).toMatchObject({ ok: false, status: null });
    expect(result.error).toMatch(/^target refused: .*is not allowed/);
    expect(requests).toBe(0);
  });

  it.each(['public', 'local'] as const)('refuses the metadata address and private ranges under the %s rules', async (policy) => {
    const scheme = policy === 'public' ? 'https' : 'http';
    for (const host of ['169.254.169.254', '10.1.2.3', '192.168.0.10']) {
      const result = await postOnce({ ...attempt, url: `${scheme}://${host}/hook` }, policy, 2000);
      expect(result.ok).toBe(false);
      expect(result.error).toMatch(/^target refused/);
    }
  });

  it('does not follow a redirect to a private address: the 302 is the failed attempt', async () => {
    handler = (response) => response.writeHead(302, { location: 'http://10.0.0.1/steal' }).end();
    const result = await postOnce({ ...attempt, url: `http://127.0.0.1:${port}/hook` }, 'local', 2000);
    expect(result).toEqual({ ok: false, status: 302, error: 'HTTP 302 (redirects are not followed)' });
    expect(requests).toBe(1);
  });

  it('gives up on a receiver that never answers at the time limit', async () => {
    handler = () => undefined;
    const { result, ms } = await timed(() => postOnce({ ...attempt, url: `http://127.0.0.1:${port}/hook` }, 'local', 300));
    expect(result).toEqual({ ok: false, status: null, error: 'no complete answer within 0.3 s' });
    expect(ms).toBeLessThan(2000);
  });

  it('reads no more than a short excerpt of a receiver that streams without end', async () => {
    handler = (response) => {
      response.writeHead(500);
      const chunk = 'x'.repeat(64 * 1024);
      const pump = () => {
        while (!response.destroyed && response.write(chunk));
        if (!response.destroyed) response.once('drain', pump);
      };
      pump();
    };
    const { result, ms } = await timed(() => postOnce({ ...attempt, url: `http://127.0.0.1:${port}/hook` }, 'local', 5000));
    expect(result).toMatchObject({ ok: false, status: 500 });
    expect((result as { error: string }).error.length).toBeLessThanOrEqual('HTTP 500: '.length + 256);
    expect(ms).toBeLessThan(2000);
  });

  it('fails a receiver that closes the connection in the middle of its answer', async () => {
    handler = (response) => {
      response.writeHead(200, { 'content-length': '1000' });
      response.write('partial');
      setTimeout(() => response.socket?.destroy(), 20);
    };
    const result = await postOnce({ ...attempt, url: `http://127.0.0.1:${port}/hook` }, 'local', 2000);
    expect(result).toEqual({ ok: false, status: 200, error: 'the receiver closed the connection before its answer ended' });
  });

  it('counts a 2xx with its whole answer as delivered', async () => {
    handler = (response) => response.writeHead(200).end('ok');
    expect(await postOnce({ ...attempt, url: `http://127.0.0.1:${port}/hook` }, 'local', 2000)).toEqual({ ok: true, status: 200, error: null });
  });
});
