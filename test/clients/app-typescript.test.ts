import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { decodeJwt } from 'jose';
import type { Subscription } from '#data/model/subscription';
import { LicenseClient, type LicenseClientOptions, type LicenseError, type PublicJwk, type WithDevice } from '../../clients/app-typescript/src/index';
import { keys } from '#data/keys';
import { setTeamPlan } from '../../functions/admin/owners';
import { startLocalServer } from '../../local/server';
import { failure } from '../support/app-client';
import { startTestServer, type TestServer } from '../support/env';
import { seedLicense, seedSubscription } from '../support/fixtures';
import { startInterceptingProxy, type InterceptingProxy, type Intercepted } from '../support/intercepting-proxy';
import { createOwner, type Owner } from '../support/owners';

/**
 * The app client library (clients/app-typescript) against the local server on
 * loopback, through an intercepting proxy that plays a cracked machine's.
 */
let env: TestServer;
let owner: Owner;
let subscription: Subscription;
let metered: Subscription;
let pem: string;
let jwk: PublicJwk;
let proxy: InterceptingProxy;
const workDir = mkdtempSync(join(tmpdir(), 'app-client-'));

beforeAll(async () => {
  // Country and ASN are trusted as CloudFront would send them, so the proxy can play a viewer of a blacklisted country.
  env = await startTestServer({ config: { cacheTtlSeconds: 0, trustedViewerHeaders: ['country', 'asn'] } });
  owner = await createOwner(env.deps);
  subscription = await seedSubscription(env.deps, owner);
  metered = await seedSubscription(env.deps, owner, { usage_limits: { exports: { limit: 5, period: 'none', overage: 0 } } });
  const key = (await env.post('/app/signing-key', { app_id: owner.app_id }, owner.auth)).body.data as { public_key_pem: string; jwk: PublicJwk };
  pem = key.public_key_pem;
  jwk = key.jwk;
  proxy = await startInterceptingProxy(env.server.url);
}, 60_000);
afterAll(async () => {
  await proxy.close();
  await env.close();
});
afterEach(() => {
  proxy.tamper = undefined;
  proxy.rewrite = undefined;
  proxy.refuse = undefined;
});

let files = 0;
const tokenFile = () => join(workDir, `token-${(files += 1)}`, 'license.json');
const client = (options: Partial<LicenseClientOptions> = {}) => new LicenseClient({ url: proxy.url, appId: owner.app_id, publicKey: pem, timeoutMs: 5000, ...options });
const license = (overrides: Parameters<typeof seedLicense>[2] = {}, of: Subscription = subscription) => seedLicense(env.deps, of, overrides);
const floating = (overrides: Parameters<typeof seedLicense>[2] = {}) => license({ hwid_lock: true, max_devices: 1, lease_seconds: 60, ...overrides });
const manage = (path: string, body: Record<string, unknown>) => env.post(path, body, owner.auth);
const leasesOf = async (key: string) => (await manage('/license/get', { license_key: key })).body.data.leases as { hwid: string }[];
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
const sha256Digest = (body: string | Buffer) => `sha-256=:${createHash('sha256').update(body).digest('base64')}:`;
const sentBodies = (path: string) => proxy.requests.filter((request) => request.path === path).map((request) => JSON.parse(request.body) as Record<string, unknown>);

describe('check', () => {
  it('accepts a verified answer by license key, sending a fresh nonce each time, and keeps the offline token atomically', async () => {
    const { key } = await license();
    const file = tokenFile();
    const app = client({ tokenFile: file });
    const before = sentBodies('/auth').length;

    const first = await app.check({ license: key });
    const second = await app.check({ license: key });

    expect(first).toMatchObject({ message: 'LICENSE_VERIFIED_UNUSED_AND_UNLOCKED_KEY', offline: false, data: { key, subscription_name: 'Pro' } });
    expect(second.message).toBe('LICENSE_VERIFIED_USED_AND_UNLOCKED_KEY');
    const nonces = sentBodies('/auth').slice(before).map((body) => body.nonce);
    expect(nonces).toHaveLength(2);
    expect(new Set(nonces).size).toBe(2);
    const stored = JSON.parse(readFileSync(file, 'utf8')) as { token: string };
    expect(stored.token).toBe(second.offline ? undefined : second.data.offline_token);
    expect(decodeJwt(stored.token)).toMatchObject({ iss: owner.app_id, sub: key, nonce: nonces[1] });
    // Beside the token only the latest time seen (README, "State"): no temporary file is left.
    expect(readdirSync(join(file, '..')).sort()).toEqual(['license.json', 'license.json.clock']);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('accepts fresh answers and their tokens whatever the computer clock says', async () => {
    for (const days of [-30, 30]) {
      const { key } = await license();
      const result = await client({ now: () => Date.now() + days * 86400_000, tokenFile: tokenFile() }).check({ license: key });
      expect(result).toMatchObject({ offline: false, data: { key } });
    }
  });

  it('accepts the public key as a JWK too, and asks for no token without a token file', async () => {
    const { key } = await license();
    const result = await client({ publicKey: jwk }).check({ license: key });
    expect(result.offline).toBe(false);
    expect(result.data).not.toHaveProperty('offline_token');
    expect(sentBodies('/auth').at(-1)).not.toHaveProperty('offline_token');
  });

  it('checks by username and password once registered', async () => {
    const { key } = await license();
    const app = client({ tokenFile: tokenFile() });
    expect(await app.register({ license: key, username: `user-${key.slice(0, 5)}`, password: 'correct horse' })).toEqual({
      message: 'License credentials updated successfully',
      data: undefined,
      offline: false,
    });
    const result = await app.check({ username: `USER-${key.slice(0, 5)}`, password: 'correct horse' });
    expect(result).toMatchObject({ offline: false, data: { key, username: `user-${key.slice(0, 5)}` } });
    expect((await failure(app.check({ username: `user-${key.slice(0, 5)}`, password: 'wrong horse' }))).code).toBe('INVALID_USERNAME_OR_PASSWORD');
  });

  it("surfaces the service's refusals as typed errors with their data, without retrying them", async () => {
    const app = client();
    const before = proxy.requests.length;
    const missing = await failure(app.check({ license: 'NO-SUCH-LICENSE' }));
    expect(missing).toMatchObject({ code: 'LICENSE_NOT_FOUND', status: 403, data: undefined });
    expect(proxy.requests.length - before).toBe(1);

    const { key } = await license({ hwid_lock: true });
    await app.check({ license: key, hwid: 'first-pc' });
    const mismatch = await failure(app.check({ license: key, hwid: 'second-pc' }));
    expect(mismatch).toMatchObject({ code: 'HWID_MISMATCH', data: { hwid_reset_allowed: true, last_hwid_reset_at: null, hwid_reset_cooldown: 0 } });
  });

  it('refuses a key that is no Ed25519 public key, and a JWK whose kid is not its thumbprint', () => {
    expect(() => client({ publicKey: 'not a key' })).toThrow(TypeError);
    expect(() => client({ publicKey: { ...jwk, kid: 'another' } })).toThrow('thumbprint');
  });
});

/** Each change a local proxy could make to a genuine answer. */
const tampers: [name: string, change: (answer: Intercepted) => Intercepted][] = [
  ['a refusal turned into a 200', (answer) => ({ ...answer, status: 200 })],
  // Retrying it would end in NETWORK_ERROR and open the offline path: a signed 5xx is retried only once it verifies.
  ['a signed answer turned into a 503', (answer) => ({ ...answer, status: 503 })],
  ['the body altered', (answer) => ({ ...answer, body: Buffer.from(answer.body.toString().replace('HWID_MISMATCH', 'LICENSE_VERIFIED_USED_AND_LOCKED_KEY')) })],
  [
    'the body altered with a matching Content-Digest',
    (answer) => {
      const body = Buffer.from(answer.body.toString().replace('"success":false', '"success":true'));
      return { ...answer, body, headers: { ...answer.headers, 'content-digest': sha256Digest(body) } };
    },
  ],
  ['the signature altered', (answer) => ({ ...answer, headers: { ...answer.headers, signature: answer.headers.signature!.replace(/sig1=:(.)/, (_, first: string) => `sig1=:${first === 'A' ? 'B' : 'A'}`) } })],
  ['a parameter added to Signature-Input', (answer) => ({ ...answer, headers: { ...answer.headers, 'signature-input': `${answer.headers['signature-input']};tag="x"` } })],
  ['the nonce altered', (answer) => ({ ...answer, headers: { ...answer.headers, 'signature-input': answer.headers['signature-input']!.replace(/nonce="[^"]+"/, 'nonce="another-nonce-0001"') } })],
  [
    'the signature headers removed',
    (answer) => {
      const { signature: _signature, 'signature-input': _input, 'content-digest': _digest, ...headers } = answer.headers;
      return { ...answer, headers };
    },
  ],
];

/**
 * A license checked once from a device, then that device's HWID, IP, country or ASN blacklisted; `viewer`
 * are the CloudFront headers the proxy then puts on the check, as CloudFront would for such a viewer.
 */
function blacklisted(
  code: string,
  type: 'hwid' | 'ip' | 'country' | 'asn',
  value: string,
  device: { hwid?: string } = {},
  viewer: Record<string, string> = {},
): [string, (app: LicenseClient) => Promise<WithDevice>, () => Promise<unknown>] {
  // The application is known once the tests run, not when the cases are listed.
  const entry = () => ({ app_id: owner.app_id, type, value });
  return [
    code,
    async (app) => {
      const { key } = await license();
      await app.check({ license: key, ...device });
      await manage('/blacklist/add', entry());
      proxy.rewrite = (request) => ({ ...request, headers: { ...request.headers, ...viewer } });
      return { license: key, ...device };
    },
    () => manage('/blacklist/delete', entry()),
  ];
}

/**
 * Each way the service refuses a license that had a token (docs/client-api.md#check-order):
 * the license is checked once, keeping its token, then changed so that /auth refuses it.
 * `arrange` answers the check that is refused next; `undo` puts back what it changed
 * beyond its own license.
 */
const refusals: [code: string, arrange: (app: LicenseClient) => Promise<WithDevice>, undo?: () => Promise<unknown>][] = [
  [
    'LICENSE_NOT_FOUND',
    async (app) => {
      const { key } = await license();
      await app.check({ license: key });
      await manage('/license/delete', { license_key: key });
      return { license: key };
    },
  ],
  [
    'INVALID_USERNAME_OR_PASSWORD',
    async (app) => {
      const { key } = await license();
      const username = `refused-${key.slice(0, 5)}`;
      await app.register({ license: key, username, password: 'correct horse' });
      await app.check({ username, password: 'correct horse' });
      await manage('/license/update-user-credentials', { license_key: key, username, password: 'another horse' });
      return { username, password: 'correct horse' };
    },
  ],
  [
    'LICENSE_NOT_ACTIVE',
    async (app) => {
      const { key } = await license();
      await app.check({ license: key });
      await manage('/license/update-status', { license_key: key, status: 'paused' });
      return { license: key };
    },
  ],
  [
    'LICENSE_EXPIRED',
    async (app) => {
      const { key } = await license();
      await app.check({ license: key });
      await env.deps.table.doc.send(
        new UpdateCommand({ TableName: env.deps.table.name, Key: keys.license(key), UpdateExpression: 'SET expires_at = :past', ExpressionAttributeValues: { ':past': '2020-01-01T00:00:00.000Z' } }),
      );
      return { license: key };
    },
  ],
  [
    'APPLICATION_NOT_ACTIVE',
    async (app) => {
      const { key } = await license();
      await app.check({ license: key });
      await manage('/app/update', { app_id: owner.app_id, status: 'inactive' });
      return { license: key };
    },
    () => manage('/app/update', { app_id: owner.app_id, status: 'active' }),
  ],
  [
    'TEAM_ERROR',
    async (app) => {
      const { key } = await license();
      await app.check({ license: key });
      await setTeamPlan(env.deps, { teamId: owner.team_id, planExpiresAt: '2020-01-01T00:00:00.000Z' });
      return { license: key };
    },
    () => setTeamPlan(env.deps, { teamId: owner.team_id, planExpiresAt: null }),
  ],
  [
    'SUBSCRIPTION_ERROR',
    async (app) => {
      const tier = await seedSubscription(env.deps, owner, { name: 'Deleted' });
      const { key } = await license({}, tier);
      await app.check({ license: key });
      await manage('/subscription/delete', { subscription_id: tier.subscription_id });
      return { license: key };
    },
  ],
  [
    'SUBSCRIPTION_NOT_ACTIVE',
    async (app) => {
      const tier = await seedSubscription(env.deps, owner, { name: 'Stopped' });
      const { key } = await license({}, tier);
      await app.check({ license: key });
      await manage('/subscription/edit', { subscription_id: tier.subscription_id, status: 'inactive' });
      return { license: key };
    },
  ],
  [
    'HWID_NOT_PROVIDED',
    async (app) => {
      const { key } = await license({ hwid_lock: true });
      await app.check({ license: key, hwid: 'desk' });
      return { license: key };
    },
  ],
  [
    'HWID_MISMATCH',
    async (app) => {
      const { key } = await license({ hwid_lock: true });
      await app.check({ license: key, hwid: 'old-desk' });
      await manage('/hwid/edit', { license_key: key, hwid: 'new-desk' });
      return { license: key, hwid: 'old-desk' };
    },
  ],
  [
    'DEVICE_ALREADY_REGISTERED_WITH_OTHER_LICENSE',
    async (app) => {
      const tier = await seedSubscription(env.deps, owner, { name: 'One license a device', single_key_per_hwid: true });
      const [holder, moved] = await Promise.all([license({ hwid_lock: true }, tier), license({ hwid_lock: true }, tier)]);
      await client().check({ license: holder.key, hwid: 'shared-desk' });
      await app.check({ license: moved.key, hwid: 'own-desk' });
      await manage('/hwid/edit', { license_key: moved.key, hwid: null });
      return { license: moved.key, hwid: 'shared-desk' };
    },
  ],
  [
    'SEATS_EXHAUSTED',
    async (app) => {
      const { key } = await floating();
      await app.borrow({ license: key, hwid: 'laptop', seconds: 3600 });
      await manage('/hwid/remove', { license_key: key, hwid: 'laptop' });
      await client().check({ license: key, hwid: 'desktop' });
      return { license: key, hwid: 'laptop' };
    },
  ],
  blacklisted('HWID_BLACKLISTED', 'hwid', 'stolen-pc', { hwid: 'stolen-pc' }),
  blacklisted('IP_BLACKLISTED', 'ip', '127.0.0.1'),
  blacklisted('COUNTRY_BLACKLISTED', 'country', 'AQ', {}, { 'cloudfront-viewer-country': 'AQ' }),
  blacklisted('ASN_BLACKLISTED', 'asn', '64500', {}, { 'cloudfront-viewer-asn': '64500' }),
];

describe('a refusal of the license by the service', () => {
  const cases = refusals.map(([code, arrange, undo]) => ({ code, arrange, undo }));
  it.each(cases)('$code deletes the stored token of that license, so no check is answered from it once the network is gone', async ({ code, arrange, undo }) => {
    const file = tokenFile();
    const app = client({ tokenFile: file });
    let refusedCheck: WithDevice;
    try {
      refusedCheck = await arrange(app);
      expect(existsSync(file)).toBe(true);

      expect((await failure(app.check(refusedCheck))).code).toBe(code);
      expect(existsSync(file)).toBe(false);
    } finally {
      proxy.rewrite = undefined;
      await undo?.();
    }
    proxy.refuse = () => true;
    expect((await failure(client({ tokenFile: file, timeoutMs: 300 }).check(refusedCheck))).code).toBe('NETWORK_ERROR');
  });

  it('is covered for every code by which /auth refuses a license of a known application', () => {
    const checkOrder = readFileSync(new URL('../../docs/client-api.md', import.meta.url), 'utf8').split('### Check order')[1]!.split('\n\n')[2]!;
    const documented = new Set([...checkOrder.matchAll(/`([A-Z_]{6,})`/g)].map((match) => match[1]!));
    // An application the service does not have (INVALID_APP_ID, APPLICATION_NOT_FOUND) has no license with a token; LICENSE_NOT_FLOATING answers a borrow only.
    for (const notAfterAToken of ['INVALID_APP_ID', 'APPLICATION_NOT_FOUND', 'LICENSE_NOT_FLOATING']) documented.delete(notAfterAToken);
    expect(refusals.map(([code]) => code).sort()).toEqual([...documented].sort());
  });

  it('keeps the token of another license, and the token when the refusal does not verify', async () => {
    const { key } = await license();
    const file = tokenFile();
    const app = client({ tokenFile: file });
    await app.check({ license: key });
    const stored = readFileSync(file, 'utf8');

    expect((await failure(app.check({ license: 'ANOTHER-LICENSE' }))).code).toBe('LICENSE_NOT_FOUND');
    await manage('/license/update-status', { license_key: key, status: 'paused' });
    proxy.tamper = (answer) => ({ ...answer, headers: { ...answer.headers, signature: 'sig1=:AAAA:' } });
    expect((await failure(app.check({ license: key }))).code).toBe('INVALID_SIGNATURE');

    expect(readFileSync(file, 'utf8')).toBe(stored);
  });
});

describe('answers altered on the way', () => {
  it.each(tampers)('rejects %s as INVALID_SIGNATURE, without falling back to the stored token', async (_name, change) => {
    const { key } = await license({ hwid_lock: true });
    const app = client({ tokenFile: tokenFile() });
    await app.check({ license: key, hwid: 'pc-1' });
    proxy.tamper = change;
    expect((await failure(app.check({ license: key, hwid: 'pc-2' }))).code).toBe('INVALID_SIGNATURE');
  });

  it('rejects the unsigned answer to an application the service does not know', async () => {
    const { key } = await license();
    const stranger = client({ appId: '00000000-0000-4000-8000-000000000000' });
    expect((await failure(stranger.check({ license: key }))).code).toBe('INVALID_SIGNATURE');
  });

  it('rejects a genuine earlier answer replayed', async () => {
    const { key } = await license({ hwid_lock: true });
    const app = client({ tokenFile: tokenFile() });
    let recorded: Intercepted | undefined;
    proxy.tamper = (answer) => (recorded ??= answer);
    await app.check({ license: key, hwid: 'pc-1' });
    expect(recorded?.status).toBe(200);
    await manage('/license/update-status', { license_key: key, status: 'paused' });
    expect((await failure(app.check({ license: key, hwid: 'pc-1' }))).code).toBe('INVALID_SIGNATURE');
  });

  it.each([
    ['keeping the program’s Content-Digest', (original: string) => ({ 'content-digest': original })],
    ['with the Content-Digest of its own body', (_original: string, body: string) => ({ 'content-digest': sha256Digest(body) })],
    ['without a Content-Digest', () => ({})],
  ])('rejects the answer a relaying proxy got for its own license, %s', async (_name, digestHeader) => {
    const [mine, theirs] = await Promise.all([license({ status: 'paused' }), license()]);
    proxy.rewrite = (request) => {
      const body = request.body.replace(mine.key, theirs.key);
      const { 'content-digest': original, ...headers } = request.headers;
      return { ...request, body, headers: { ...headers, ...digestHeader(String(original), body) } };
    };
    expect((await failure(client({ tokenFile: tokenFile() }).check({ license: mine.key }))).code).toBe('INVALID_SIGNATURE');
  });

  it('rejects a genuine answer about another license, made for another request', async () => {
    const [mine, theirs] = await Promise.all([license(), license()]);
    const app = client();
    let genuine: Intercepted | undefined;
    proxy.tamper = (answer) => (genuine = answer);
    await client().check({ license: theirs.key });
    proxy.tamper = () => genuine!;
    expect((await failure(app.check({ license: mine.key }))).code).toBe('INVALID_SIGNATURE');
  });
});

describe('retries', () => {
  it('retries a cut connection, a 5xx and a 429, sending the same body again', async () => {
    const { key } = await license();
    const app = client();
    let attempt = 0;
    proxy.refuse = () => (attempt += 1) === 1;
    proxy.tamper = (answer) => {
      if (attempt === 2) return { status: 503, headers: { 'content-type': 'application/json' }, body: Buffer.from('{"message":"Service Unavailable"}') };
      if (attempt === 3) return { status: 429, headers: { 'content-type': 'application/json', 'retry-after': '0' }, body: Buffer.from('{"message":"Too Many Requests"}') };
      return answer;
    };
    const before = proxy.requests.length;
    expect((await app.check({ license: key })).offline).toBe(false);
    const attempts = proxy.requests.slice(before);
    expect(attempts).toHaveLength(4);
    expect(new Set(attempts.map((attempt) => attempt.body)).size).toBe(1);
  });

  it('gives NETWORK_ERROR when no answer comes within the timeout and no token was stored', async () => {
    const { key } = await license();
    proxy.refuse = () => true;
    const started = Date.now();
    const error = await failure(client({ timeoutMs: 1500, tokenFile: tokenFile() }).check({ license: key }));
    expect(error.code).toBe('NETWORK_ERROR');
    expect(Date.now() - started).toBeLessThan(1500 + 1000);
  });
});

describe('offline', () => {
  it('succeeds from the stored token while the service is stopped, for this license and device only, until the token expires', async () => {
    const { key } = await license({ hwid_lock: true });
    const server = await startLocalServer({ deps: env.deps, port: 0 });
    let now = Date.now();
    const file = tokenFile();
    // A generous deadline online (a busy machine); a short one once the service is dark, where every try fails at once.
    const options = { url: server.url, tokenFile: file, timeoutMs: 1000, now: () => now };
    const online = await client({ ...options, timeoutMs: 15_000 }).check({ license: key, hwid: 'laptop' });
    expect(online.offline).toBe(false);
    await server.close();

    now += 6 * 86400_000;
    const offline = await client(options).check({ license: key, hwid: 'laptop' });
    expect(offline).toMatchObject({ message: 'OFFLINE_TOKEN_VALID', offline: true, data: { iss: owner.app_id, sub: key, hwid: 'laptop', subscription_name: 'Pro' } });
    expect((await failure(client(options).check({ license: key, hwid: 'another-laptop' }))).code).toBe('NETWORK_ERROR');
    expect((await failure(client(options).check({ license: 'ANOTHER-LICENSE', hwid: 'laptop' }))).code).toBe('NETWORK_ERROR');

    now += 2 * 86400_000;
    expect((await failure(client(options).check({ license: key, hwid: 'laptop' }))).code).toBe('OFFLINE_TOKEN_EXPIRED');
  });

  it('refuses a stored token that was altered, and one for a user name it was not got with', async () => {
    const { key } = await license();
    const server = await startLocalServer({ deps: env.deps, port: 0 });
    const file = tokenFile();
    const online = client({ url: server.url, tokenFile: file, timeoutMs: 15_000 });
    await online.register({ license: key, username: `offline-${key.slice(0, 5)}`, password: 'correct horse' });
    await online.check({ username: `offline-${key.slice(0, 5)}`, password: 'correct horse' });
    await server.close();
    const app = client({ url: server.url, tokenFile: file, timeoutMs: 1000 });

    expect((await app.check({ username: `Offline-${key.slice(0, 5)}`, password: 'correct horse' })).offline).toBe(true);
    expect((await failure(app.check({ username: 'someone-else', password: 'correct horse' }))).code).toBe('NETWORK_ERROR');
    const stored = JSON.parse(readFileSync(file, 'utf8')) as { token: string };
    const [header, payload, signature] = stored.token.split('.');
    const forged = Buffer.from(JSON.stringify({ ...decodeJwt(stored.token), subscription_level: 99 })).toString('base64url');
    writeFileSync(file, JSON.stringify({ ...stored, token: `${header}.${forged}.${signature}` }));
    expect(payload).not.toBe(forged);
    expect((await failure(app.check({ license: key }))).code).toBe('INVALID_SIGNATURE');
  });
});

describe('floating seats', () => {
  it('a seat is taken by one client, refused to another with SEATS_EXHAUSTED, and free for it once released', async () => {
    const { key } = await floating();
    const first = client();
    const second = client();
    const heartbeat = await first.startHeartbeat({ license: key, hwid: 'ws-ana' });
    expect(heartbeat.leaseExpiresAt).toBeGreaterThan(Date.now() + 50_000);

    const exhausted = await failure(second.check({ license: key, hwid: 'ws-ben' }));
    expect(exhausted).toMatchObject({ code: 'SEATS_EXHAUSTED', data: { max_devices: 1, next_seat_at: new Date(heartbeat.leaseExpiresAt).toISOString() } });
    expect((await failure(second.startHeartbeat({ license: key, hwid: 'ws-ben' }))).code).toBe('SEATS_EXHAUSTED');

    await heartbeat.stop();
    expect(await leasesOf(key)).toEqual([]);
    const taken = await second.check({ license: key, hwid: 'ws-ben' });
    expect(taken.offline ? undefined : taken.data.hwids).toEqual(['ws-ben']);
    const released = await second.release({ license: key, hwid: 'ws-ben' });
    expect(released).toMatchObject({ message: 'SEAT_RELEASED', data: { hwids: [], lease_expires_at: null } });
  });

  it('renews by its timer at about half the lease, as long as the service gave it, whatever the computer clock says', async () => {
    const { key } = await floating();
    // An hour behind: the lease is measured from the answer (last_login to lease_expires_at), not against this clock.
    const behind = () => Date.now() - 3600_000;
    const heartbeat = await client({ now: behind }).startHeartbeat({ license: key, hwid: 'ws-ana' });
    const firstEnd = heartbeat.leaseExpiresAt;
    const due = heartbeat.nextRenewalAt - behind();
    expect(due).toBeGreaterThanOrEqual(27_000);
    expect(due).toBeLessThanOrEqual(33_000);
    const deadline = Date.now() + 40_000;
    while (heartbeat.leaseExpiresAt === firstEnd && Date.now() < deadline) await sleep(250);
    expect(heartbeat.leaseExpiresAt).toBeGreaterThan(firstEnd);
    // Read up to a poll (250 ms) and a busy machine's delay after the renewal set it: at least 27 s then.
    expect(heartbeat.nextRenewalAt - behind()).toBeGreaterThanOrEqual(26_000);
    await heartbeat.stop();
    expect(await leasesOf(key)).toEqual([]);
  }, 60_000);

  it('reports through onLost a seat taken over, and a lease that ended while the service was out of reach', async () => {
    const { key } = await floating();
    const lost: LicenseError[] = [];
    const heartbeat = await client().startHeartbeat({ license: key, hwid: 'ws-ana', onLost: (error) => lost.push(error) });
    const firstEnd = heartbeat.leaseExpiresAt;
    await sleep(20);
    await heartbeat.renewNow();
    expect(heartbeat.leaseExpiresAt).toBeGreaterThan(firstEnd);
    await manage('/hwid/remove', { license_key: key, hwid: 'ws-ana' });
    await client().check({ license: key, hwid: 'ws-ben' });
    await heartbeat.renewNow();
    expect(lost.map((error) => error.code)).toEqual(['SEATS_EXHAUSTED']);
    expect(heartbeat.lost?.data).toMatchObject({ max_devices: 1 });
    await heartbeat.stop();
    expect(await leasesOf(key)).toMatchObject([{ hwid: 'ws-ben' }]);

    const other = await floating();
    let now = Date.now();
    const lostOffline: LicenseError[] = [];
    const unreachable = await client({ now: () => now, timeoutMs: 1000 }).startHeartbeat({ license: other.key, hwid: 'ws-cai', onLost: (error) => lostOffline.push(error) });
    proxy.refuse = () => true;
    await unreachable.renewNow();
    expect(lostOffline).toEqual([]);
    now += 61_000;
    await unreachable.renewNow();
    expect(lostOffline.map((error) => error.code)).toEqual(['NETWORK_ERROR']);
  });

  it('refuses a heartbeat and a release on a license that is not floating', async () => {
    const { key } = await license({ hwid_lock: true });
    const app = client();
    expect((await failure(app.startHeartbeat({ license: key, hwid: 'pc' }))).code).toBe('LICENSE_NOT_FLOATING');
    expect((await failure(app.release({ license: key, hwid: 'pc' }))).code).toBe('LICENSE_NOT_FLOATING');
  });

  it('borrows a seat: its token is kept and used offline until the borrow ends, and the seat cannot be released early', async () => {
    const { key } = await floating();
    const server = await startLocalServer({ deps: env.deps, port: 0 });
    let now = Date.now();
    const options = { url: server.url, tokenFile: tokenFile(), timeoutMs: 1000, now: () => now };
    const online = { ...options, timeoutMs: 15_000 };
    const borrowed = await client(online).borrow({ license: key, hwid: 'train-laptop', seconds: 3600 });
    const claims = decodeJwt(borrowed.data.offline_token!);
    expect(claims).toMatchObject({ borrowed: true, sub: key, exp: Date.parse(borrowed.data.lease_expires_at!) / 1000 });
    expect((await failure(client(online).release({ license: key, hwid: 'train-laptop' }))).code).toBe('LEASE_BORROWED');
    await server.close();

    now += 3500_000;
    expect(await client(options).check({ license: key, hwid: 'train-laptop' })).toMatchObject({ offline: true, data: { borrowed: true, sub: key } });
    now += 200_000;
    expect((await failure(client(options).check({ license: key, hwid: 'train-laptop' }))).code).toBe('OFFLINE_TOKEN_EXPIRED');
  });
});

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** A program in its own process that takes a floating seat with a heartbeat and then ends by itself, or waits for a signal. */
function holdSeat(licenseKey: string, ending: 'by itself' | 'on a signal') {
  const file = join(workDir, `holder-${(files += 1)}.mts`);
  writeFileSync(
    file,
    [
      `import { LicenseClient } from ${JSON.stringify(join(root, 'clients', 'app-typescript', 'src', 'index.ts'))};`,
      `const client = new LicenseClient({ url: ${JSON.stringify(proxy.url)}, appId: ${JSON.stringify(owner.app_id)}, publicKey: ${JSON.stringify(pem)} });`,
      `await client.startHeartbeat({ license: ${JSON.stringify(licenseKey)}, hwid: 'closing-pc' });`,
      "console.log('holding');",
      ending === 'on a signal' ? 'setInterval(() => undefined, 1000);' : '',
    ].join('\n'),
  );
  // tsx as a loader rather than its CLI, so the signal reaches the program itself.
  const child = spawn(process.execPath, ['--import', 'tsx', file], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  const holding = new Promise<void>((held) => child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('holding') && held()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => child.once('exit', (code, signal) => done({ code, signal })));
  return { child, holding, exited };
}

describe('the seat on a clean exit', () => {
  it('is released when the program ends by itself', async () => {
    const { key } = await floating();
    const holder = holdSeat(key, 'by itself');
    await holder.holding;
    expect(await holder.exited).toEqual({ code: 0, signal: null });
    expect(await leasesOf(key)).toEqual([]);
    expect(proxy.requests.filter((request) => request.path === '/release' && request.body.includes(key))).toHaveLength(1);
  }, 60_000);

  it('is released on SIGTERM, after which the program ends by that signal', async () => {
    const { key } = await floating();
    const holder = holdSeat(key, 'on a signal');
    await holder.holding;
    expect(await leasesOf(key)).toMatchObject([{ hwid: 'closing-pc' }]);
    holder.child.kill('SIGTERM');
    expect(await holder.exited).toEqual({ code: null, signal: 'SIGTERM' });
    expect(await leasesOf(key)).toEqual([]);
  }, 60_000);
});

describe('devices, registration and usage', () => {
  it('resets the device so another computer can take the license', async () => {
    const { key } = await license({ hwid_lock: true });
    const app = client();
    await app.check({ license: key, hwid: 'old-pc' });
    expect((await failure(app.check({ license: key, hwid: 'new-pc' }))).code).toBe('HWID_MISMATCH');
    expect(await app.resetHwid({ license: key })).toMatchObject({ message: 'HWID_RESET', data: { key } });
    expect(await app.check({ license: key, hwid: 'new-pc' })).toMatchObject({ message: 'LICENSE_VERIFIED_USED_AND_LOCKED_KEY' });
    expect((await failure(app.resetHwid({ license: key, hwid: 'old-pc' }))).code).toBe('HWID_NOT_BOUND');
  });

  it('records usage, sending one usage_id across its retries so a lost answer counts once', async () => {
    const { key } = await license({}, metered);
    const app = client();
    await app.check({ license: key });
    expect(await app.recordUsage({ license: key, counter: 'exports', amount: 2 })).toMatchObject({
      message: 'USAGE_RECORDED',
      data: { counter: 'exports', used: 2, limit: 5, remaining: 3 },
    });

    let lose = true;
    proxy.tamper = (answer, request) => (request.path === '/usage' && lose ? ((lose = false), 'drop') : answer);
    const before = proxy.requests.length;
    expect((await app.recordUsage({ license: key, counter: 'exports' })).data).toMatchObject({ used: 3, remaining: 2 });
    const attempts = proxy.requests.slice(before).map((request) => JSON.parse(request.body) as { usage_id: string });
    expect(attempts).toHaveLength(2);
    expect(attempts[1]!.usage_id).toBe(attempts[0]!.usage_id);
    expect(attempts[0]!.usage_id).toMatch(/^[A-Za-z0-9._~+/=-]{8,128}$/);

    const refused = await failure(app.recordUsage({ license: key, counter: 'exports', amount: 3 }));
    expect(refused).toMatchObject({ code: 'USAGE_LIMIT_REACHED', data: { used: 3, remaining: 2 } });
    expect((await failure(app.recordUsage({ license: key, counter: 'nothing' }))).code).toBe('USAGE_COUNTER_UNKNOWN');
  });
});

describe('trials, against POST /trial', () => {
  let trialOwner: Owner;
  let trialPem: string;
  let devices = 0;
  const device = () => `ts-trial-${(devices += 1)}`;
  const trialClient = () => client({ appId: trialOwner.app_id, publicKey: trialPem });
  const trialsOn = (on: boolean) =>
    env.post('/app/settings', { app_id: trialOwner.app_id, trial: on ? { subscription_id: trialTier, duration_seconds: 14 * 86400, per_ip_per_day: 1000 } : null }, trialOwner.auth);
  let trialTier: string;

  beforeAll(async () => {
    trialOwner = await createOwner(env.deps);
    trialTier = (await seedSubscription(env.deps, trialOwner, { name: 'Trial' })).subscription_id;
    trialPem = (await env.post('/app/signing-key', { app_id: trialOwner.app_id }, trialOwner.auth)).body.data.public_key_pem;
    expect((await trialsOn(true)).status).toBe(200);
  });

  it('starts a device’s trial once, resumes it with the same key, and the key checks as any license', async () => {
    const hwid = device();
    const before = sentBodies('/trial').length;
    const started = await trialClient().startTrial({ hwid });
    expect(started).toMatchObject({ message: 'TRIAL_STARTED', offline: false, data: { key: started.data.license, subscription_name: 'Trial', hwid_lock: true } });
    const resumed = await trialClient().startTrial({ hwid });
    expect([resumed.message, resumed.data.license]).toEqual(['TRIAL_RESUMED', started.data.license]);
    const sent = sentBodies('/trial').slice(before);
    expect(sent.map((body) => [body.app_id, body.hwid])).toEqual([[trialOwner.app_id, hwid], [trialOwner.app_id, hwid]]);
    expect(sent[0]!.nonce).not.toBe(sent[1]!.nonce);
    expect((await trialClient().check({ license: started.data.license, hwid })).message).toBe('LICENSE_VERIFIED_USED_AND_LOCKED_KEY');
  });

  it('an answer lost on the way is asked for again: the same trial, one license', async () => {
    const hwid = device();
    let lose = true;
    proxy.tamper = (answer, request) => (request.path === '/trial' && lose ? ((lose = false), 'drop') : answer);
    const got = await trialClient().startTrial({ hwid });
    expect(got.message).toBe('TRIAL_RESUMED');
    const trials = (await env.post('/license/get-bulk', { app_id: trialOwner.app_id, tag: 'trial', per_page: 100 }, trialOwner.auth)).body.data as { key: string; hwid: string }[];
    expect(trials.filter((trial) => trial.hwid === hwid).map((trial) => trial.key)).toEqual([got.data.license]);
  });

  it('raises the service’s refusals with their data, and altered answers as INVALID_SIGNATURE', async () => {
    const hwid = device();
    const { data } = await trialClient().startTrial({ hwid });
    await env.post('/license/delete', { license_key: data.license }, trialOwner.auth);
    expect(await failure(trialClient().startTrial({ hwid }))).toMatchObject({ code: 'TRIAL_EXPIRED', status: 403, data: { expires_at: data.expires_at } });
    // The refusal has no HWID_MISMATCH to rewrite: that alteration would leave it genuine.
    for (const [, change] of tampers.filter(([name]) => name !== 'the body altered')) {
      proxy.tamper = change;
      expect((await failure(trialClient().startTrial({ hwid }))).code).toBe('INVALID_SIGNATURE');
    }
    proxy.tamper = undefined;
    await trialsOn(false);
    try {
      expect((await failure(trialClient().startTrial({ hwid: device() }))).code).toBe('TRIALS_DISABLED');
    } finally {
      await trialsOn(true);
    }
  });
});

describe('machineId', () => {
  it('is a stable SHA-256 in hex per machine, user and application, revealing neither id', async () => {
    const app = client();
    const id = await app.machineId();
    expect(id).toMatch(/^[0-9a-f]{64}$/);
    expect(await client().machineId()).toBe(id);
    const otherApp = new LicenseClient({ url: proxy.url, appId: '00000000-0000-4000-8000-000000000000', publicKey: pem });
    expect(await otherApp.machineId()).not.toBe(id);
    let systemId = '';
    try {
      systemId = readFileSync('/etc/machine-id', 'utf8').trim();
    } catch {
      // Not every system keeps one; the host name then stands in.
    }
    if (systemId) expect(id).not.toContain(systemId);
  });
});

describe('license files against the service', () => {
  const stateDirOf = () => join(workDir, `files-${(files += 1)}`);

  it('checks out an encrypted file online, then answers from it while the service is dark, and returns it online', async () => {
    const { key } = await license({ hwid_lock: true, hwid_reset_interval: 0 });
    const server = await startLocalServer({ deps: env.deps, port: 0 });
    const dir = stateDirOf();
    // A generous deadline online (a busy machine); a short one once the service is dark, where every try fails at once.
    const options = { url: server.url, stateDir: dir, timeoutMs: 1000 };

    const checkedOut = await client({ ...options, timeoutMs: 15_000 }).licenseFile({ license: key, hwid: 'lab-pc', lifetimeSeconds: 2 * 86400, encrypt: true });
    expect(checkedOut).toMatchObject({ message: 'LICENSE_VERIFIED_UNUSED_AND_LOCKED_KEY', offline: false, claims: { iss: owner.app_id, sub: key, hwid: 'lab-pc', air_gapped: false } });
    expect(checkedOut.data.license_file.split('.')).toHaveLength(5);
    await server.close();

    const offline = await client(options).check({ license: key, hwid: 'lab-pc' });
    expect(offline).toMatchObject({ message: 'LICENSE_FILE_VALID', offline: true, data: { sub: key, hwid: 'lab-pc', data: { key } } });

    const returned = await client({ stateDir: dir }).returnLicenseFile({ license: key, hwid: 'lab-pc' });
    expect(returned).toMatchObject({ message: 'LICENSE_FILE_RETURNED', data: { key } });
    expect((await manage('/license/get', { license_key: key })).body.data).toMatchObject({ hwid: null, files: [] });
    expect(sentBodies('/license-file/return').at(-1)).toMatchObject({ request: expect.stringMatching(/^lfx1\./) });
  });

  it('activates an air-gapped device: its request through /license-file, the file loaded, checks with no network, and its return code taken back', async () => {
    const { key } = await license({ hwid_lock: true });
    const dir = stateDirOf();
    const offline = new LicenseClient({ appId: owner.app_id, publicKey: jwk, stateDir: dir });

    const { request } = await offline.activationRequest({ license: key, hwid: 'factory-pc', lifetimeSeconds: 86400 });
    const answer = await env.post('/license-file', { request });
    expect([answer.status, answer.body.message]).toEqual([200, 'LICENSE_VERIFIED_UNUSED_AND_LOCKED_KEY']);
    const claims = await offline.loadLicenseFile(`${answer.body.data.license_file}\n`);
    expect(claims).toMatchObject({ iss: owner.app_id, sub: key, hwid: 'factory-pc', air_gapped: true });

    expect(await offline.check({ license: key, hwid: 'factory-pc' })).toMatchObject({ message: 'LICENSE_FILE_VALID', offline: true });
    const code = await offline.returnCode({ license: key, hwid: 'factory-pc' });
    const taken = await env.post('/license-file/return', { request: code });
    expect([taken.status, taken.body.message]).toEqual([200, 'LICENSE_FILE_RETURNED']);
    expect((await failure(offline.check({ license: key, hwid: 'factory-pc' }))).code).toBe('NETWORK_ERROR');
    expect((await manage('/license/get', { license_key: key })).body.data.hwid).toBeNull();
  });

  it('refuses a file the service made for another device of the same license', async () => {
    const { key } = await license({ hwid_lock: true, max_devices: 2 });
    const device = new LicenseClient({ appId: owner.app_id, publicKey: jwk, stateDir: stateDirOf() });
    await device.activationRequest({ license: key, hwid: 'pc-1' });
    const other = await env.post('/license-file', { app_id: owner.app_id, license: key, hwid: 'pc-2' });

    expect((await failure(device.loadLicenseFile(other.body.data.license_file))).code).toBe('LICENSE_FILE_MISMATCH');
  });
});
