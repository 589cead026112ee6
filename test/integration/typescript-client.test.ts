import { randomBytes } from 'node:crypto';
import { SignJWT, generateKeyPair, type JWK } from 'jose';
import {
  contentDigest,
  createLicensingClient,
  LicensingApiError,
  SignatureError,
  unwrap,
  verifyOfflineToken,
  verifySignedAnswer,
  type LicensingClient,
  type RawAnswer,
} from '../../clients/typescript/src/index';
import { startTestServer, type TestServer } from '../support/env';
import { createOwner, type Owner } from '../support/owners';

/** A sleep that records each wait and really waits, so a throttled server has refilled when the retry arrives. */
function recordingSleep() {
  const waits: number[] = [];
  const sleep = (ms: number) => {
    waits.push(ms);
    return new Promise<void>((done) => setTimeout(done, ms));
  };
  return { waits, sleep };
}

/** The statuses and Retry-After headers of every attempt that went over the wire. */
function wireLog() {
  const attempts: { status: number; retryAfter: string | null }[] = [];
  const fetchOnce = async (request: Request) => {
    const response = await fetch(request);
    attempts.push({ status: response.status, retryAfter: response.headers.get('retry-after') });
    return response;
  };
  return { attempts, fetchOnce };
}

const nonce = () => randomBytes(12).toString('base64url');

let env: TestServer;
let owner: Owner;
let other: Owner;
let client: LicensingClient;
const waitsOfMainClient: number[] = [];

beforeAll(async () => {
  env = await startTestServer();
  [owner, other] = await Promise.all([createOwner(env.deps), createOwner(env.deps)]);
  client = createLicensingClient({ baseUrl: env.server.url, apiKey: owner.api_key, retry: { sleep: async (ms) => void waitsOfMainClient.push(ms) } });
});
afterAll(() => env.close());

async function newLicense(hwidLock = false) {
  const { data: subscription } = await unwrap(client.POST('/subscription/create', { body: { app_id: owner.app_id, name: 'Pro', level: 2 } }));
  const { data: license } = await unwrap(
    client.POST('/license/create', { body: { app_id: owner.app_id, subscription_id: subscription.subscription_id, duration_unit: 'days', duration_value: 30, hwid_lock: hwidLock } }),
  );
  return { subscription, license };
}

describe('the typed client against the local server', () => {
  it('makes management calls end to end, typed from the document', async () => {
    const { subscription, license } = await newLicense();
    expect(license).toMatchObject({ app_id: owner.app_id, subscription_id: subscription.subscription_id, subscription_level: 2, status: 'active' });

    const { data: paused } = await unwrap(client.POST('/license/update-status', { body: { license_key: license.key, status: 'paused' } }));
    expect(paused.status).toBe('paused');

    const got = await client.POST('/license/get', { body: { license_key: license.key } });
    expect(got.response.status).toBe(200);
    expect(got.data?.data.key).toBe(license.key);

    const listed = await unwrap(
      client.POST('/license/get-bulk', { body: { app_id: owner.app_id, status: 'paused', per_page: 10 } }),
    );
    expect(listed.data.map((listedLicense) => listedLicense.key)).toEqual([license.key]);
    expect(listed.next_cursor).toBeNull();

    const { data: apps } = await unwrap(client.POST('/app/list', { body: {} }));
    expect(apps.map((app) => app.app_id)).toContain(owner.app_id);
    expect(waitsOfMainClient).toEqual([]);
  });

  it('surfaces a 4xx as the typed error with its error_code, without retrying', async () => {
    const missing = await client.POST('/license/get', { body: { license_key: 'NO-SUCH-LICENSE-KEY' } });
    expect(missing.response.status).toBe(404);
    expect(missing.error?.error_code).toBe('LICENSE_NOT_FOUND');

    const thrown = await unwrap(client.POST('/license/get', { body: { license_key: 'NO-SUCH-LICENSE-KEY' } })).catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(LicensingApiError);
    expect(thrown).toMatchObject({ status: 404, errorCode: 'LICENSE_NOT_FOUND' });

    const keyless = createLicensingClient({ baseUrl: env.server.url });
    await expect(unwrap(keyless.POST('/app/list', { body: {} }))).rejects.toMatchObject({ status: 401, errorCode: 'MISSING_AUTH' });
    expect(waitsOfMainClient).toEqual([]);
  });

  it('retries a 5xx after the documented first wait, sending the body again intact', async () => {
    const { subscription } = await newLicense();
    const { waits, sleep } = recordingSleep();
    const bodies: string[] = [];
    let failures = 1;
    const flaky = createLicensingClient({
      baseUrl: env.server.url,
      apiKey: owner.api_key,
      retry: { sleep },
      fetch: async (request) => {
        bodies.push(await request.clone().text());
        if (failures-- > 0) return new Response('{"message":"Service Unavailable"}', { status: 503 });
        return fetch(request);
      },
    });
    const body = { app_id: owner.app_id, subscription_id: subscription.subscription_id, duration_unit: 'days' as const, duration_value: 7, hwid_lock: true, tags: ['retried'] };
    const { data: license } = await unwrap(flaky.POST('/license/create', { body }));
    expect(license).toMatchObject({ initial_duration: 7 * 86400, hwid_lock: true, tags: ['retried'] });
    expect(waits).toEqual([1000]);
    expect(bodies).toHaveLength(2);
    expect(bodies[1]).toBe(bodies[0]);
    expect(JSON.parse(bodies[0]!)).toEqual(body);
  });
});

describe('the typed client against a throttled local server', () => {
  let throttled: TestServer;
  let busy: Owner;

  beforeAll(async () => {
    throttled = await startTestServer({ rateLimit: { ratePerSecond: 1, burst: 1 } });
    busy = await createOwner(throttled.deps);
  });
  afterAll(() => throttled.close());

  it('retries a 429 after the Retry-After the server sent, then succeeds', async () => {
    const { waits, sleep } = recordingSleep();
    const { attempts, fetchOnce } = wireLog();
    // Fallback waits far shorter than the bucket's refill: only honouring Retry-After gets through.
    const limited = createLicensingClient({ baseUrl: throttled.server.url, apiKey: busy.api_key, retry: { sleep, delays: [20, 20, 20] }, fetch: fetchOnce });

    const answers = await Promise.all([limited.POST('/app/list', { body: {} }), limited.POST('/app/list', { body: {} })]);
    expect(answers.map((answer) => answer.response.status)).toEqual([200, 200]);
    expect(answers.map((answer) => answer.data?.data.map((app) => app.app_id))).toEqual([[busy.app_id], [busy.app_id]]);

    const throttledAttempts = attempts.filter((attempt) => attempt.status === 429);
    expect(throttledAttempts.length).toBeGreaterThanOrEqual(1);
    for (const attempt of throttledAttempts) expect(Number(attempt.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(waits).toEqual(throttledAttempts.map((attempt) => Number(attempt.retryAfter) * 1000));
    expect(attempts.filter((attempt) => attempt.status === 200)).toHaveLength(2);
  });
});

describe('verifying signed answers and offline tokens', () => {
  let jwk: JWK;
  let pem: string;
  let otherJwk: JWK;
  let licenseKey: string;
  const appClient = () => createLicensingClient({ baseUrl: env.server.url });

  beforeAll(async () => {
    const { data: key } = await unwrap(client.POST('/app/signing-key', { body: { app_id: owner.app_id } }));
    jwk = key.jwk;
    pem = key.public_key_pem;
    otherJwk = (await unwrap(createLicensingClient({ baseUrl: env.server.url, apiKey: other.api_key }).POST('/app/signing-key', { body: { app_id: other.app_id } }))).data.jwk;
    licenseKey = (await newLicense()).license.key;
  });

  /** A real /auth answer, its raw body kept for tampering. */
  async function rawAuth(body: Record<string, unknown>): Promise<RawAnswer & { text: string }> {
    const response = await fetch(`${env.server.url}/auth`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text, text };
  }

  it('accepts a real signed /auth answer bound to its request inside an openapi-fetch middleware, and its offline token', async () => {
    const lockedKey = (await newLicense(true)).license.key;
    const sent = nonce();
    let verified: unknown;
    let requestDigest = '';
    const answer = await appClient().POST('/auth', {
      body: { app_id: owner.app_id, license: lockedKey, hwid: 'device-1', nonce: sent, offline_token: true },
      middleware: [
        {
          onRequest: async ({ request }) => {
            requestDigest = await contentDigest(await request.clone().text());
            request.headers.set('Content-Digest', requestDigest);
            return request;
          },
          onResponse: async ({ response }) => void (verified = await verifySignedAnswer(response, { jwk, nonce: sent, requestDigest, licenseKey: lockedKey })),
        },
      ],
    });
    expect(answer.response.status).toBe(200);
    expect(answer.response.headers.get('signature-input')).toContain('"content-digest";req');
    expect(verified).toEqual(answer.data);
    const token = answer.data!.data.offline_token!;

    const claims = await verifyOfflineToken(token, { jwk, appId: owner.app_id, nonce: sent, licenseKey: lockedKey, hwid: 'device-1' });
    expect(claims).toMatchObject({ iss: owner.app_id, sub: lockedKey, hwid: 'device-1', subscription_name: 'Pro', subscription_level: 2, nonce: sent });
    expect(await verifyOfflineToken(token, { publicKeyPem: pem, appId: owner.app_id })).toEqual(claims);
  });

  it('makes a license floating, borrows a seat with a verified borrowed token, and is refused its release, all typed', async () => {
    const { license } = await newLicense(true);
    const { data: floating } = await unwrap(client.POST('/hwid/set-lease', { body: { license_key: license.key, lease_seconds: 900 } }));
    expect(floating).toMatchObject({ lease_seconds: 900, floating: true, leases: [] });

    const borrowed = await appClient().POST('/auth', { body: { app_id: owner.app_id, license: license.key, hwid: 'laptop', borrow_seconds: 3600 } });
    const leaseEnd = borrowed.data!.data.lease_expires_at!;
    const claims = await verifyOfflineToken(borrowed.data!.data.offline_token!, { jwk, appId: owner.app_id, licenseKey: license.key, hwid: 'laptop' });
    expect(claims).toMatchObject({ borrowed: true, exp: Date.parse(leaseEnd) / 1000 });

    const refused = await appClient().POST('/release', { body: { app_id: owner.app_id, license: license.key, hwid: 'laptop' } });
    expect(refused.response.status).toBe(403);
    expect(refused.error).toEqual({ success: false, message: 'LEASE_BORROWED', data: { lease_expires_at: leaseEnd } });
  });

  it('accepts a signed failure and an answer without a nonce when none was sent, from the PEM as well', async () => {
    const refused = await rawAuth({ app_id: owner.app_id, license: 'NO-SUCH-LICENSE-KEY' });
    expect(refused.status).toBe(403);
    expect(await verifySignedAnswer(refused, { publicKeyPem: pem })).toEqual(JSON.parse(refused.text));
  });

  it('rejects a tampered body, another nonce, another key, an old or unsigned answer', async () => {
    const sent = nonce();
    const answer = await rawAuth({ app_id: owner.app_id, license: licenseKey, nonce: sent });
    expect(answer.status).toBe(200);
    await expect(verifySignedAnswer(answer, { jwk, nonce: sent })).resolves.toMatchObject({ success: true });

    const tampered = { ...answer, body: answer.text.replace('"success":true', '"success":true ') };
    await expect(verifySignedAnswer(tampered, { jwk, nonce: sent })).rejects.toThrow(new SignatureError('the body does not match Content-Digest'));

    const forgedDigest = new Headers(answer.headers);
    const forgedBody = JSON.stringify({ ...JSON.parse(answer.text), message: 'LICENSE_VERIFIED_USED_AND_UNLOCKED_KEY', forged: true });
    forgedDigest.set('content-digest', `sha-256=:${Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(forgedBody))).toString('base64')}:`);
    await expect(verifySignedAnswer({ ...answer, headers: forgedDigest, body: forgedBody }, { jwk, nonce: sent })).rejects.toThrow(new SignatureError('bad signature'));

    await expect(verifySignedAnswer({ ...answer, status: 403 }, { jwk, nonce: sent })).rejects.toThrow(new SignatureError('bad signature'));
    await expect(verifySignedAnswer(answer, { jwk, nonce: nonce() })).rejects.toThrow(new SignatureError('signed for another nonce'));
    await expect(verifySignedAnswer(answer, { jwk })).rejects.toThrow(new SignatureError('signed for another nonce'));
    await expect(verifySignedAnswer(answer, { jwk: otherJwk, nonce: sent })).rejects.toThrow(new SignatureError('signed by another key'));
    await expect(verifySignedAnswer(answer, { jwk, nonce: sent, now: () => Date.now() + 301_000 })).rejects.toThrow(new SignatureError('the signature is too old'));

    const unsigned = new Headers(answer.headers);
    unsigned.delete('signature');
    await expect(verifySignedAnswer({ ...answer, headers: unsigned }, { jwk, nonce: sent })).rejects.toThrow(new SignatureError('no signature header: the answer is not signed'));
    const malformed = new Headers(answer.headers);
    malformed.set('signature-input', 'sig1=("@status" "content-digest";created=1');
    await expect(verifySignedAnswer({ ...answer, headers: malformed }, { jwk, nonce: sent })).rejects.toThrow(new SignatureError('signature-input is no structured dictionary'));
  });

  it('rejects an offline token for another nonce, application, license, device or key, or a forged one', async () => {
    const sent = nonce();
    const answer = await rawAuth({ app_id: owner.app_id, license: licenseKey, nonce: sent, offline_token: true });
    const token = (JSON.parse(answer.text) as { data: { offline_token: string } }).data.offline_token;
    const expected = { jwk, appId: owner.app_id };
    await expect(verifyOfflineToken(token, { ...expected, nonce: sent, licenseKey })).resolves.toMatchObject({ sub: licenseKey });

    await expect(verifyOfflineToken(token, { ...expected, nonce: nonce() })).rejects.toThrow(new SignatureError('the offline token is for another request'));
    await expect(verifyOfflineToken(token, { ...expected, hwid: 'another-device' })).rejects.toThrow(new SignatureError('the offline token is for another device'));
    await expect(verifyOfflineToken(token, { ...expected, appId: other.app_id })).rejects.toThrow('unexpected "iss" claim value');
    await expect(verifyOfflineToken(token, { ...expected, licenseKey: 'ANOTHER-LICENSE-KEY' })).rejects.toThrow('unexpected "sub" claim value');
    await expect(verifyOfflineToken(token, { ...expected, jwk: otherJwk })).rejects.toThrow('signature verification failed');
    await expect(verifyOfflineToken(token, { ...expected, now: () => Date.now() + 8 * 86400_000 })).rejects.toThrow('"exp" claim timestamp check failed');

    const forger = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
    const forged = await new SignJWT({ hwid: null, hwids: [] })
      .setProtectedHeader({ alg: 'EdDSA', kid: jwk.kid, typ: 'JWT' })
      .setIssuer(owner.app_id)
      .setSubject(licenseKey)
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(forger.privateKey);
    await expect(verifyOfflineToken(forged, expected)).rejects.toThrow('signature verification failed');
  });
});
