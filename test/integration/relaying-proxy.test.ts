import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { contentDigest as clientContentDigest, verifyOfflineToken as clientVerifyToken, verifySignedAnswer } from '../../clients/typescript/src/index';
import { startTestServer, type TestServer } from '../support/env';
import { seedLicense, seedSubscription } from '../support/fixtures';
import { createOwner, type Owner } from '../support/owners';
import { docsVerifier, examplesDir, pythonWithModules, type PublicJwk, type RawAnswer } from '../support/verifier';

/**
 * A proxy that holds one genuine license and serves every cracked client with
 * it: it keeps the client's nonce (so a nonce check alone passes), puts its own
 * license and device in the body, asks the real service and hands back the
 * answer as signed. What it does with the client's Content-Digest:
 * `drop` it, send its `own` for its body, or `forward` it unchanged.
 */
type DigestHandling = 'drop' | 'own' | 'forward';

interface RelayingProxy {
  url: string;
  close(): Promise<void>;
}

const maxBody = 16 * 1024;

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBody) throw new Error('body too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function startRelayingProxy(upstream: string, genuine: { license: string; hwid: string }, digests: DigestHandling): Promise<RelayingProxy> {
  const server: Server = createServer((request, response) => {
    void (async () => {
      const asked = JSON.parse(await readBody(request)) as Record<string, unknown>;
      const body = JSON.stringify({ ...asked, license: genuine.license, hwid: genuine.hwid });
      const digest = digests === 'own' ? await clientContentDigest(body) : digests === 'forward' ? String(request.headers['content-digest']) : undefined;
      const answer = await fetch(`${upstream}${request.url}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(digest === undefined ? {} : { 'content-digest': digest }) },
        body,
        signal: AbortSignal.timeout(10_000),
      });
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      for (const name of ['content-digest', 'signature-input', 'signature']) {
        const value = answer.headers.get(name);
        if (value !== null) headers[name] = value;
      }
      response.writeHead(answer.status, headers).end(await answer.text());
    })().catch(() => response.writeHead(502).end());
  });
  server.requestTimeout = 10_000;
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((closed) => server.close(() => closed())),
  };
}

/** What the cracked program sent, and what came back through the proxy. */
interface Exchange {
  license: string;
  hwid: string;
  nonce: string;
  requestDigest: string;
  answer: RawAnswer;
  token: string;
}

const run = promisify(execFile);
const python = pythonWithModules();
if (!python) {
  process.stderr.write('SKIPPED: the Python verifier needs python3 with cryptography and PyJWT (apt-get install python3-cryptography python3-jwt)\n');
}

/** The Python example's verifiers, run on one relayed exchange with each set of expectations; each result is "ok" or the error. */
async function pythonVerdicts(exchange: Exchange, jwk: PublicJwk, appId: string, checks: Record<string, unknown>[]): Promise<string[]> {
  const script = `
import base64, json, sys
sys.path.insert(0, sys.argv[1])
from verify_answer import verify_answer, verify_offline_token
given = json.load(sys.stdin)
results = []
for check in given["checks"]:
    try:
        if check["what"] == "answer":
            verify_answer(given["status"], given["headers"], base64.b64decode(given["body"]), given["jwk"], given["nonce"], check.get("request_digest"), check.get("license"))
        else:
            verify_offline_token(given["token"], given["jwk"], given["app_id"], given["nonce"], check.get("license"), check.get("hwid"))
        results.append("ok")
    except Exception as error:
        results.append(str(error) or type(error).__name__)
print(json.dumps(results))
`;
  const headers: Record<string, string> = {};
  exchange.answer.headers.forEach((value, name) => (headers[name] = value));
  const input = JSON.stringify({
    status: exchange.answer.status,
    headers,
    body: Buffer.from(exchange.answer.body).toString('base64'),
    jwk,
    nonce: exchange.nonce,
    token: exchange.token,
    app_id: appId,
    checks,
  });
  const child = run(python!, ['-c', script, examplesDir], { timeout: 30_000 });
  child.child.stdin!.end(input);
  return JSON.parse((await child).stdout) as string[];
}

let env: TestServer;
let owner: Owner;
let jwk: PublicJwk;
let genuine: { license: string; hwid: string };
const proxies: RelayingProxy[] = [];

beforeAll(async () => {
  env = await startTestServer();
  owner = await createOwner(env.deps);
  jwk = ((await env.post('/app/signing-key', { app_id: owner.app_id }, owner.auth)).body as { data: { jwk: PublicJwk } }).data.jwk;
  const license = await seedLicense(env.deps, await seedSubscription(env.deps, owner), { hwid_lock: true });
  genuine = { license: license.key, hwid: 'proxy-owners-pc' };
});
afterAll(async () => {
  await Promise.all(proxies.map((proxy) => proxy.close()));
  await env.close();
});

/** A cracked program asks the proxy about a key it made up, from its own device, with a fresh nonce and its body's Content-Digest. */
async function crackedClientAsks(digests: DigestHandling): Promise<Exchange> {
  const proxy = await startRelayingProxy(env.server.url, genuine, digests);
  proxies.push(proxy);
  const exchange = { license: `CRACK-${randomBytes(4).toString('hex').toUpperCase()}`, hwid: 'cracked-pc', nonce: randomBytes(12).toString('base64url') };
  const body = JSON.stringify({ app_id: owner.app_id, license: exchange.license, hwid: exchange.hwid, nonce: exchange.nonce, offline_token: true });
  const { contentDigest } = await docsVerifier();
  const requestDigest = contentDigest(body);
  const response = await fetch(`${proxy.url}/auth`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-digest': requestDigest },
    body,
    signal: AbortSignal.timeout(10_000),
  });
  const answer = { status: response.status, headers: response.headers, body: await response.text() };
  const token = (JSON.parse(answer.body) as { data?: { offline_token?: string } }).data?.offline_token ?? '';
  return { ...exchange, requestDigest, answer, token };
}

describe('a relaying proxy with one genuine license', () => {
  let dropped: Exchange;
  let ownDigest: Exchange;

  beforeAll(async () => {
    dropped = await crackedClientAsks('drop');
    ownDigest = await crackedClientAsks('own');
  });

  it('gets genuine, correctly signed answers and tokens for its own license, carrying the cracked client’s nonce', () => {
    for (const exchange of [dropped, ownDigest]) {
      const body = JSON.parse(exchange.answer.body) as { success: boolean; data: { key: string } };
      expect([exchange.answer.status, body.success, body.data.key]).toEqual([200, true, genuine.license]);
      expect(exchange.answer.headers.get('signature-input')).toContain(`nonce="${exchange.nonce}"`);
    }
    expect(dropped.answer.headers.get('signature-input')).not.toContain(';req');
    expect(ownDigest.answer.headers.get('signature-input')).toContain('"content-digest";req');
  });

  it('fools a verifier that checks only key, nonce and freshness: the attack the new checks stop', async () => {
    const { verifyAnswer, verifyOfflineToken } = await docsVerifier();
    expect(verifyAnswer(dropped.answer, { jwk, nonce: dropped.nonce })).toMatchObject({ success: true, data: { key: genuine.license } });
    await expect(verifyOfflineToken(dropped.token, { jwk, appId: owner.app_id, nonce: dropped.nonce })).resolves.toMatchObject({
      sub: genuine.license,
      hwid: genuine.hwid,
    });
    await expect(verifySignedAnswer(dropped.answer, { jwk, nonce: dropped.nonce })).resolves.toMatchObject({ success: true });
    await expect(clientVerifyToken(dropped.token, { jwk, appId: owner.app_id, nonce: dropped.nonce })).resolves.toMatchObject({ sub: genuine.license });
  });

  it('is caught by the Node example through the request digest alone, and through the license and device alone', async () => {
    const { verifyAnswer, verifyOfflineToken } = await docsVerifier();
    expect(() => verifyAnswer(dropped.answer, { jwk, nonce: dropped.nonce, requestDigest: dropped.requestDigest })).toThrow('unexpected Signature-Input');
    expect(() => verifyAnswer(ownDigest.answer, { jwk, nonce: ownDigest.nonce, requestDigest: ownDigest.requestDigest })).toThrow('bad signature');
    expect(() => verifyAnswer(dropped.answer, { jwk, nonce: dropped.nonce, license: dropped.license })).toThrow('answer about another license');
    const token = { jwk, appId: owner.app_id, nonce: dropped.nonce };
    await expect(verifyOfflineToken(dropped.token, { ...token, license: dropped.license })).rejects.toThrow('unexpected "sub" claim value');
    await expect(verifyOfflineToken(dropped.token, { ...token, hwid: dropped.hwid })).rejects.toThrow('offline token for another device');
  });

  it('is caught by the typed client through the request digest alone, and through the license and device alone', async () => {
    await expect(verifySignedAnswer(dropped.answer, { jwk, nonce: dropped.nonce, requestDigest: dropped.requestDigest })).rejects.toThrow(
      'the signature covers other components',
    );
    await expect(verifySignedAnswer(ownDigest.answer, { jwk, nonce: ownDigest.nonce, requestDigest: ownDigest.requestDigest })).rejects.toThrow('bad signature');
    await expect(verifySignedAnswer(dropped.answer, { jwk, nonce: dropped.nonce, licenseKey: dropped.license })).rejects.toThrow('the answer is about another license');
    const token = { jwk, appId: owner.app_id, nonce: dropped.nonce };
    await expect(clientVerifyToken(dropped.token, { ...token, licenseKey: dropped.license })).rejects.toThrow('unexpected "sub" claim value');
    await expect(clientVerifyToken(dropped.token, { ...token, hwid: dropped.hwid })).rejects.toThrow('the offline token is for another device');
  });

  (python ? it : it.skip)('is caught by the Python example through the request digest alone, and through the license and device alone', async () => {
    const checks = [
      { what: 'answer' },
      { what: 'token' },
      { what: 'answer', request_digest: dropped.requestDigest },
      { what: 'answer', license: dropped.license },
      { what: 'token', license: dropped.license },
      { what: 'token', hwid: dropped.hwid },
    ];
    expect(await pythonVerdicts(dropped, jwk, owner.app_id, checks)).toEqual([
      'ok',
      'ok',
      'unexpected Signature-Input (another key, request or nonce)',
      'answer about another license',
      'offline token for another license',
      'offline token for another device',
    ]);
    const [ownVerdict] = await pythonVerdicts(ownDigest, jwk, owner.app_id, [{ what: 'answer', request_digest: ownDigest.requestDigest }]);
    expect(ownVerdict).toBe('InvalidSignature');
  });

  it('gets only a 400 when it forwards the client’s Content-Digest with its own body', async () => {
    const forwarded = await crackedClientAsks('forward');
    expect([forwarded.answer.status, JSON.parse(forwarded.answer.body)]).toEqual([400, { success: false, message: 'Invalid Content-Digest' }]);
    const { verifyAnswer } = await docsVerifier();
    expect(() => verifyAnswer(forwarded.answer, { jwk, nonce: forwarded.nonce, requestDigest: forwarded.requestDigest })).toThrow('unexpected Signature-Input');
  });

  it('cannot fool the verifiers when the client asked the service itself: the same checks accept a genuine answer', async () => {
    const license = await seedLicense(env.deps, await seedSubscription(env.deps, owner), { hwid_lock: true });
    const nonce = randomBytes(12).toString('base64url');
    const body = JSON.stringify({ app_id: owner.app_id, license: license.key, hwid: 'own-pc', nonce, offline_token: true });
    const requestDigest = await clientContentDigest(body);
    const response = await fetch(`${env.server.url}/auth`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-digest': requestDigest }, body });
    const answer = { status: response.status, headers: response.headers, body: await response.text() };
    const { verifyAnswer, verifyOfflineToken } = await docsVerifier();
    const verified = verifyAnswer(answer, { jwk, nonce, requestDigest, license: license.key }) as { data: { offline_token: string } };
    await expect(verifyOfflineToken(verified.data.offline_token, { jwk, appId: owner.app_id, nonce, license: license.key, hwid: 'own-pc' })).resolves.toMatchObject({ sub: license.key });
    await expect(verifySignedAnswer(answer, { jwk, nonce, requestDigest, licenseKey: license.key })).resolves.toMatchObject({ success: true });
    await expect(clientVerifyToken(verified.data.offline_token, { jwk, appId: owner.app_id, nonce, licenseKey: license.key, hwid: 'own-pc' })).resolves.toMatchObject({ hwid: 'own-pc' });
  });
});
