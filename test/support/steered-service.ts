import { createHash } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '#data/keys';
import { setTeamPlan } from '../../functions/admin/owners';
import { startLocalServer, type LocalServer } from '../../local/server';
import { startTestServer, type TestServer } from './env';
import { startInterceptingProxy, type Intercepted, type InterceptingProxy, type SeenRequest } from './intercepting-proxy';
import { createOwner, type Owner } from './owners';

/**
 * The local server on loopback with an intercepting proxy in front of it that
 * a client library's own test suite, in another language and process, steers
 * over HTTP: the proxy alters status, body, signature or nonce, replays an old
 * answer, relays another license, answers as a gateway (502, 429), loses
 * answers, and stops and restarts the server (test/clients/app-python.test.ts,
 * test/clients/go.test.ts, test/clients/c.test.ts, test/clients/csharp.test.ts).
 */

export type Mode =
  | 'pass'
  | 'status'
  | 'status-5xx'
  | 'body'
  | 'body-redigest'
  | 'signature'
  | 'strip'
  | 'nonce-request'
  | 'nonce-answer'
  | 'replay'
  | 'relay'
  | 'gateway-502'
  | 'rate-limited'
  | 'lose-answer';

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const digestOf = (body: string) => `sha-256=:${createHash('sha256').update(body).digest('base64')}:`;
const signed = ['content-digest', 'signature-input', 'signature'];

/** The proxy's alterations of a genuine answer, each one a forger's attempt. */
function alter(mode: Mode, answer: Answer): Answer {
  const headers = { ...answer.headers };
  switch (mode) {
    case 'status':
      return { ...answer, status: answer.status === 200 ? 403 : 200 };
    case 'status-5xx':
      return { ...answer, status: 503 };
    case 'body':
    case 'body-redigest': {
      const body = answer.body.includes('"success":false')
        ? answer.body.replace('"success":false', '"success":true')
        : `{"forged":true,${answer.body.slice(1).replace(/"subscription_level":\d+/, '"subscription_level":99')}`;
      if (mode === 'body-redigest') headers['content-digest'] = digestOf(body);
      return { status: 200, headers, body };
    }
    case 'signature': {
      const raw = Buffer.from(/sig1=:([^:]*):/.exec(headers.signature ?? '')?.[1] ?? '', 'base64');
      raw[0] = (raw[0] ?? 0) ^ 1;
      headers.signature = `sig1=:${raw.toString('base64')}:`;
      return { ...answer, headers };
    }
    case 'strip':
      for (const name of signed) delete headers[name];
      return { ...answer, headers };
    case 'nonce-answer':
      headers['signature-input'] = (headers['signature-input'] ?? '').replace(/;nonce="[^"]*"/, ';nonce="replaced-by-the-proxy"');
      return { ...answer, headers };
    default:
      return answer;
  }
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Intercepted => ({
  status,
  headers: { 'content-type': 'application/json', ...headers },
  body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
});

/** What a client library's tests may change in the service beside the proxy: state an owner's API key cannot set. */
interface Steering {
  /** Stops or starts the server. */
  server(body: { running?: unknown }): Promise<void>;
  /** Sets the team's plan expiry ({plan_expires_at}: an ISO time, or null), as the admin CLI does. */
  team(body: { plan_expires_at?: unknown }): Promise<void>;
  /** Makes a license ({license}) expired an hour ago, as time would. */
  expire(body: { license?: unknown }): Promise<void>;
}

/**
 * The intercepting proxy in front of the service, steered by a client library's tests through
 * `POST /__control/*`: `mode` ({mode, times?, license?, viewer?}: the next `times` requests, or all until the next
 * mode, `viewer` the CloudFront viewer headers, e.g. `{"country": "AQ"}`, put on the requests forwarded),
 * `log` (the request bodies forwarded since the last mode), and those of `Steering`: `server`, `team`, `expire`.
 */
async function startSteeredProxy(upstream: string, steering: Steering): Promise<InterceptingProxy> {
  const proxy = await startInterceptingProxy(upstream);
  let mode: Mode = 'pass';
  let times = Infinity;
  let relayLicense = '';
  let viewer: Record<string, string> = {};
  let log: unknown[] = [];
  const last = new Map<string, Answer>();
  // Each request is handled in the mode that was current when it arrived, through every hook it passes.
  const modeOf = new WeakMap<SeenRequest, Mode>();

  const control = async (path: string, body: Record<string, unknown>): Promise<Intercepted> => {
    if (path === '/__control/mode') {
      mode = body.mode as Mode;
      times = typeof body.times === 'number' ? body.times : Infinity;
      relayLicense = String(body.license ?? '');
      viewer = Object.fromEntries(Object.entries((body.viewer ?? {}) as Record<string, string>).map(([name, value]) => [`cloudfront-viewer-${name}`, value]));
      log = [];
    } else if (path === '/__control/server' || path === '/__control/team' || path === '/__control/expire') {
      await steering[path.slice('/__control/'.length) as keyof Steering](body);
    } else if (path !== '/__control/log') {
      return json(404, {});
    }
    return json(200, { log });
  };

  proxy.respond = async (request) => {
    const path = request.path.split('?')[0]!;
    if (path.startsWith('/__control/')) return control(path, request.body ? (JSON.parse(request.body) as Record<string, unknown>) : {});
    const current = times > 0 ? mode : 'pass';
    times -= 1;
    modeOf.set(request, current);
    if (current === 'replay' && last.has(path)) {
      const replayed = last.get(path)!;
      return { ...replayed, body: Buffer.from(replayed.body) };
    }
    if (current === 'gateway-502') return json(502, '{"message":"Bad Gateway"}');
    if (current === 'rate-limited') {
      log.push(JSON.parse(request.body));
      return json(429, '{"success":false,"message":"RATE_LIMITED"}', { 'retry-after': '1' });
    }
    return undefined;
  };
  proxy.rewrite = (seen) => {
    const current = modeOf.get(seen);
    log.push(JSON.parse(seen.body));
    const request = { ...seen, headers: { ...seen.headers, ...viewer } };
    if (current !== 'nonce-request' && current !== 'relay') return request;
    const parsed = JSON.parse(request.body) as Record<string, unknown>;
    if (current === 'nonce-request') parsed.nonce = `proxy-${String(parsed.nonce)}`;
    else parsed.license = relayLicense;
    const body = JSON.stringify(parsed);
    return { ...request, body, headers: { ...request.headers, 'content-digest': digestOf(body) } };
  };
  proxy.tamper = (intercepted, request) => {
    const answer: Answer = { ...intercepted, body: intercepted.body.toString('utf8') };
    last.set(request.path.split('?')[0]!, answer);
    const current = modeOf.get(request) ?? 'pass';
    if (current === 'lose-answer') return json(504, '{"message":"Endpoint request timed out"}');
    const altered = alter(current, answer);
    return { ...altered, body: Buffer.from(altered.body) };
  };
  return proxy;
}

/** What a client library's suite is given: the service, its owner, the application's public key, and the steered proxy. */
export interface SteeredService {
  env: TestServer;
  owner: Owner;
  key: { jwk: Record<string, unknown>; public_key_pem: string };
  proxy: InterceptingProxy;
  /** The variables the suites read: LICENSING_URL, LICENSING_PROXY_URL, LICENSING_APP_ID, LICENSING_API_KEY, LICENSING_PUBLIC_JWK, LICENSING_PUBLIC_KEY_PEM. */
  variables: Record<string, string>;
  close(): Promise<void>;
}

/** Starts the service and the steered proxy; the server is stoppable and restartable on the same port (a suite's "service unreachable"). */
export async function startSteeredService(): Promise<SteeredService> {
  // No cache, so an application, team or tier a suite changes is seen at once; CloudFront's country and ASN trusted, as the proxy plays them.
  const env = await startTestServer({ config: { cacheTtlSeconds: 0, trustedViewerHeaders: ['country', 'asn'] } });
  const owner = await createOwner(env.deps);
  const key = (await env.post('/app/signing-key', { app_id: owner.app_id }, owner.auth)).body.data as SteeredService['key'];
  await env.server.close();
  let server: LocalServer | undefined = await startLocalServer({ deps: env.deps, port: env.server.port });
  const setRunning = async (running: boolean) => {
    if (!running && server) {
      await server.close();
      server = undefined;
    } else if (running && !server) {
      server = await startLocalServer({ deps: env.deps, port: env.server.port });
    }
  };
  const proxy = await startSteeredProxy(env.server.url, {
    server: (body) => setRunning(body.running === true),
    team: async (body) => void (await setTeamPlan(env.deps, { teamId: owner.team_id, planExpiresAt: typeof body.plan_expires_at === 'string' ? body.plan_expires_at : null })),
    expire: async (body) => {
      const past = new Date(Date.now() - 3600_000).toISOString();
      await env.deps.table.doc.send(
        new UpdateCommand({ TableName: env.deps.table.name, Key: keys.license(String(body.license)), UpdateExpression: 'SET expires_at = :past', ExpressionAttributeValues: { ':past': past } }),
      );
    },
  });
  return {
    env,
    owner,
    key,
    proxy,
    variables: {
      LICENSING_URL: env.server.url,
      LICENSING_PROXY_URL: proxy.url,
      LICENSING_APP_ID: owner.app_id,
      LICENSING_API_KEY: owner.api_key,
      LICENSING_PUBLIC_JWK: JSON.stringify(key.jwk),
      LICENSING_PUBLIC_KEY_PEM: key.public_key_pem,
    },
    close: async () => {
      await proxy.close();
      await server?.close();
      env.deps.table.doc.destroy();
    },
  };
}
