import { createHash, createPublicKey, randomBytes, verify } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { calculateJwkThumbprint, decodeProtectedHeader, importJWK, jwtVerify } from 'jose';
import { createDeps } from '#core/deps';
import { newId } from '#core/ids';
import type { KeyVault } from '#core/key-vault';
import { createLogger } from '#core/logger';
import type { HttpEvent } from '#core/http/middleware';
import { signerOf } from '#core/signing/signing-keys';
import { createHandler as createClientHandler } from '../../functions/client/handler';
import * as owners from '../../functions/admin/owners';
import { startLocalServer, type LocalServer } from '../../local/server';
import { awsError, injectFault } from '../support/dynamo-faults';
import { createTestClient, startTestServer, type TestServer } from '../support/env';
import { seedLicense, seedSubscription } from '../support/fixtures';
import { createOwner, type Owner } from '../support/owners';
import { docsVerifier, postRaw, type PublicJwk, type RawAnswer } from '../support/verifier';
import type { Subscription } from '#data/model/subscription';
import * as apps from '#data/app.repo';
import * as licenses from '#data/license.repo';

let env: TestServer;
let owner: Owner;
let other: Owner;
let subscription: Subscription;
let jwk: PublicJwk;
let otherJwk: PublicJwk;
const servers: LocalServer[] = [];
/** Every answer text and header the tests saw, searched for the private key at the end. */
const seen: string[] = [];

const nonce = () => randomBytes(12).toString('base64url');

async function post(path: string, body: unknown, headers: Record<string, string> = {}, url = env.server.url): Promise<RawAnswer> {
  const answer = await postRaw(url, path, body, headers);
  const headerLines: string[] = [];
  answer.headers.forEach((value, name) => headerLines.push(`${name}: ${value}`));
  seen.push(answer.body, ...headerLines);
  return answer;
}

async function publicJwk(of: Owner): Promise<PublicJwk> {
  const answer = await post('/app/signing-key', { app_id: of.app_id }, of.auth);
  return (JSON.parse(answer.body) as { data: { jwk: PublicJwk } }).data.jwk;
}

const licenseBody = async (extra: Record<string, unknown> = {}) => ({
  app_id: owner.app_id,
  license: (await seedLicense(env.deps, subscription)).key,
  ...extra,
});

beforeAll(async () => {
  env = await startTestServer();
  owner = await createOwner(env.deps);
  other = await createOwner(env.deps);
  subscription = await seedSubscription(env.deps, owner);
  jwk = await publicJwk(owner);
  otherJwk = await publicJwk(other);
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  await env.close();
});

describe('signed client answers', () => {
  it('are accepted by a verifier that knows only the public key: successes, 4xx and both routes', async () => {
    const { verifyAnswer } = await docsVerifier();
    const sent = nonce();
    const answers = [
      await post('/auth', await licenseBody({ nonce: sent })),
      await post('/auth', { app_id: owner.app_id, license: 'NOPE-NOPE', nonce: sent }),
      await post('/auth', { app_id: owner.app_id, nonce: sent }),
      await post('/register', { app_id: owner.app_id, license: 'NOPE-NOPE', username: 'alice', password: 'password-1', nonce: sent }),
      await post('/register', { ...(await licenseBody()), username: `u${newId().slice(0, 8)}`, password: 'password-1', nonce: sent }),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 403, 400, 403, 200]);
    for (const answer of answers) {
      expect(verifyAnswer(answer, { jwk, nonce: sent })).toEqual(JSON.parse(answer.body));
      expect(answer.headers.get('access-control-expose-headers')).toBe('Signature, Signature-Input, Content-Digest');
    }
  });

  it('carry the nonce from Accept-Signature, and no nonce parameter when none was sent', async () => {
    const { verifyAnswer } = await docsVerifier();
    const sent = nonce();
    const viaHeader = await post('/auth', await licenseBody(), { 'accept-signature': `sig1=("@status" "content-digest");nonce="${sent}"` });
    expect(verifyAnswer(viaHeader, { jwk, nonce: sent })).toMatchObject({ success: true });
    const without = await post('/auth', await licenseBody());
    expect(without.headers.get('signature-input')).not.toContain('nonce');
    expect(verifyAnswer(without, { jwk })).toMatchObject({ success: true });
  });

  it('are rejected when the body, the status, the key or the nonce is not the one signed, and when replayed', async () => {
    const { verifyAnswer } = await docsVerifier();
    const sent = nonce();
    const answer = await post('/auth', await licenseBody({ nonce: sent }));
    expect(() => verifyAnswer(answer, { jwk, nonce: sent })).not.toThrow();

    const oneByte = answer.body.replace('"success":true', '"success":tru3');
    expect(oneByte).not.toBe(answer.body);
    expect(() => verifyAnswer({ ...answer, body: oneByte }, { jwk, nonce: sent })).toThrow();
    // A forger who also recomputes the digest still cannot produce the signature.
    const forged = new Headers(answer.headers);
    forged.set('content-digest', `sha-256=:${(await import('node:crypto')).createHash('sha256').update(oneByte).digest('base64')}:`);
    expect(() => verifyAnswer({ ...answer, headers: forged, body: oneByte }, { jwk, nonce: sent })).toThrow('bad signature');
    expect(() => verifyAnswer({ ...answer, status: 403 }, { jwk, nonce: sent })).toThrow('bad signature');
    expect(() => verifyAnswer(answer, { jwk: { ...otherJwk, kid: jwk.kid }, nonce: sent })).toThrow('bad signature');
    expect(() => verifyAnswer(answer, { jwk: otherJwk, nonce: sent })).toThrow();
    expect(() => verifyAnswer(answer, { jwk, nonce: nonce() })).toThrow('unexpected Signature-Input');

    // The same answer fed back to a later request that sent a fresh nonce.
    const fresh = nonce();
    await post('/auth', await licenseBody({ nonce: fresh }));
    expect(() => verifyAnswer(answer, { jwk, nonce: fresh })).toThrow('unexpected Signature-Input');
  });

  it('is signed by the other application for its own answers, never by this one', async () => {
    const { verifyAnswer } = await docsVerifier();
    const answer = await post('/auth', { app_id: other.app_id, license: 'NOPE-NOPE' });
    expect(() => verifyAnswer(answer, { jwk: otherJwk })).not.toThrow();
    expect(() => verifyAnswer(answer, { jwk })).toThrow();
  });

  it('stay unsigned without a known application: missing, malformed or unknown app_id, or no JSON', async () => {
    const unsigned = [
      await post('/auth', { license: 'K' }),
      await post('/auth', { app_id: 'not-a-uuid', license: 'K' }),
      await post('/auth', { app_id: newId(), license: 'K' }),
      await post('/register', '{nope'),
    ];
    expect(unsigned.map((answer) => answer.status)).toEqual([400, 400, 403, 400]);
    for (const answer of unsigned) {
      expect(answer.headers.get('signature')).toBeNull();
      expect(answer.headers.get('signature-input')).toBeNull();
      expect(answer.headers.get('content-digest')).toBeNull();
    }
  });

  it('answer 400 Invalid nonce after the route’s other 400 checks, for a malformed nonce or two that differ', async () => {
    const { verifyAnswer } = await docsVerifier();
    const cases: [Record<string, unknown>, Record<string, string>][] = [
      [{ nonce: 'short' }, {}],
      [{ nonce: 'has spaces in it' }, {}],
      [{ nonce: 'x'.repeat(129) }, {}],
      [{ nonce: 12345678 }, {}],
      [{ nonce: nonce() }, { 'accept-signature': `sig1=();nonce="${nonce()}"` }],
      [{}, { 'accept-signature': 'sig1=(;;' }],
      [{}, { 'accept-signature': 'sig1=();nonce=12345678' }],
    ];
    for (const [extra, headers] of cases) {
      const answer = await post('/auth', await licenseBody(extra), headers);
      expect([answer.status, JSON.parse(answer.body)]).toEqual([400, { success: false, message: 'Invalid nonce' }]);
      expect(verifyAnswer(answer, { jwk })).toBeDefined();
    }
    const spec400 = await post('/auth', { app_id: owner.app_id, nonce: 'short' });
    expect(JSON.parse(spec400.body).message).toBe('No valid authentication method provided (missing license key or username/password)');
    const register400 = await post('/register', { app_id: owner.app_id, license: 'K', username: 'ab', password: 'password-1', nonce: 'short' });
    expect(JSON.parse(register400.body).message).toBe('Username must be 3 to 50 characters');
    const same = nonce();
    const agreeing = await post('/auth', await licenseBody({ nonce: same }), { 'accept-signature': `sig1=("@status");nonce="${same}"` });
    expect(agreeing.status).toBe(200);
  });

  it('cover the request’s Content-Digest as "content-digest";req when it matches the body, sha-256 or sha-512, on every client route', async () => {
    const { contentDigest, verifyAnswer } = await docsVerifier();
    const sent = nonce();
    const requests: [string, string, string][] = [];
    const authText = JSON.stringify(await licenseBody({ nonce: sent }));
    requests.push(['/auth', authText, contentDigest(authText)]);
    const sha512Text = JSON.stringify(await licenseBody({ nonce: sent }));
    requests.push(['/auth', sha512Text, `sha-512=:${createHash('sha512').update(sha512Text).digest('base64')}:, unknown-alg=:AAAA:`]);
    const registerText = JSON.stringify({ ...(await licenseBody({ nonce: sent })), username: `u${newId().slice(0, 8)}`, password: 'password-1' });
    requests.push(['/register', registerText, contentDigest(registerText)]);
    const resetText = JSON.stringify(await licenseBody({ nonce: sent }));
    requests.push(['/reset-hwid', resetText, contentDigest(resetText)]);
    const statuses: number[] = [];
    for (const [path, text, requestDigest] of requests) {
      const answer = await post(path, text, { 'content-digest': requestDigest });
      statuses.push(answer.status);
      expect(answer.headers.get('signature-input')).toMatch(/^sig1=\("@status" "content-digest" "content-digest";req\);created=\d+;keyid="[^"]+";alg="ed25519";nonce="[^"]+"$/);
      expect(verifyAnswer(answer, { jwk, nonce: sent, requestDigest })).toEqual(JSON.parse(answer.body));
      expect(() => verifyAnswer(answer, { jwk, nonce: sent })).toThrow('unexpected Signature-Input');
      expect(() => verifyAnswer(answer, { jwk, nonce: sent, requestDigest: contentDigest(`${text} `) })).toThrow('bad signature');
    }
    expect(statuses).toEqual([200, 200, 200, 403]);
  });

  it('answer 400 Invalid Content-Digest for a digest that differs, only unknown algorithms, or a malformed field, before any read', async () => {
    const { contentDigest, verifyAnswer } = await docsVerifier();
    const license = await seedLicense(env.deps, subscription);
    const text = JSON.stringify({ app_id: owner.app_id, license: license.key });
    const otherDigest = contentDigest(`${text} `);
    const cases = [
      otherDigest,
      `sha-512=:${createHash('sha512').update('other').digest('base64')}:`,
      `${contentDigest(text)}, sha-512=:${createHash('sha512').update('other').digest('base64')}:`,
      'md5=:AAAAAAAAAAAAAAAAAAAAAA==:',
      'sha-256=not-a-byte-sequence',
      'sha-256=:!!:',
      '(',
    ];
    for (const header of cases) {
      const answer = await post('/auth', text, { 'content-digest': header });
      expect([header, answer.status, JSON.parse(answer.body)]).toEqual([header, 400, { success: false, message: 'Invalid Content-Digest' }]);
      expect(answer.headers.get('signature-input')).not.toContain(';req');
      expect(verifyAnswer(answer, { jwk })).toBeDefined();
    }
    expect((await licenses.get(env.deps.table, license.key, owner.team_id))?.first_used_at).toBeNull();
    const unknownApp = await post('/auth', JSON.stringify({ app_id: newId(), license: license.key }), { 'content-digest': otherDigest });
    expect(JSON.parse(unknownApp.body).message).toBe('Invalid Content-Digest');
    const spec400 = await post('/auth', JSON.stringify({ app_id: owner.app_id }), { 'content-digest': otherDigest });
    expect(JSON.parse(spec400.body).message).toBe('No valid authentication method provided (missing license key or username/password)');
    const nonce400 = await post('/auth', JSON.stringify({ app_id: owner.app_id, license: license.key, nonce: 'short' }), { 'content-digest': otherDigest });
    expect(JSON.parse(nonce400.body).message).toBe('Invalid nonce');
    const register400 = await post('/register', JSON.stringify({ app_id: owner.app_id, license: license.key, username: 'alice', password: 'password-1' }), { 'content-digest': otherDigest });
    expect(JSON.parse(register400.body).message).toBe('Invalid Content-Digest');
  });

  it('check the digest over the body bytes as API Gateway hands them over, base64 included', async () => {
    const { contentDigest, verifyAnswer } = await docsVerifier();
    const handler = createClientHandler(() => env.deps);
    const text = JSON.stringify({ app_id: owner.app_id, license: 'NOPE-NOPE', hwid: 'Zoë’s pc' });
    const event = (body: string, isBase64Encoded: boolean, digest: string) =>
      ({
        resource: '/auth',
        path: '/auth',
        httpMethod: 'POST',
        headers: { 'Content-Type': 'application/json', 'Content-Digest': digest },
        multiValueHeaders: {},
        body,
        isBase64Encoded,
        queryStringParameters: null,
        multiValueQueryStringParameters: null,
        pathParameters: null,
        stageVariables: null,
        requestContext: { requestId: newId(), identity: { sourceIp: '192.0.2.1' } },
      }) as unknown as HttpEvent;
    const encoded = Buffer.from(text).toString('base64');
    for (const [body, isBase64Encoded] of [[encoded, true], [text, false]] as const) {
      const result = await handler(event(body, isBase64Encoded, contentDigest(text)), {} as Context);
      const answer = { status: result.statusCode, headers: new Headers(result.headers as Record<string, string>), body: result.body };
      expect(JSON.parse(answer.body).message).toBe('LICENSE_NOT_FOUND');
      expect(verifyAnswer(answer, { jwk, requestDigest: contentDigest(text) })).toBeDefined();
    }
    const digestOfBase64Text = await handler(event(encoded, true, contentDigest(encoded)), {} as Context);
    expect(JSON.parse(digestOfBase64Text.body).message).toBe('Invalid Content-Digest');
  });

  it('gives Keycrate SDK requests (no nonce, no flag) the very bytes of an unsigned server', async () => {
    const unsigned = await startLocalServer({ deps: createDeps({ ...env.config, signAnswers: false }, { client: env.client, keyVault: env.deps.keyVault }), port: 0 });
    servers.push(unsigned);
    const requests: [string, unknown][] = [
      ['/auth', { app_id: owner.app_id, license: 'NOPE-NOPE' }],
      ['/auth', { app_id: owner.app_id }],
      ['/register', { app_id: owner.app_id, license: 'NOPE-NOPE', username: 'alice', password: 'password-1' }],
    ];
    for (const [path, body] of requests) {
      const signed = await post(path, body);
      const plain = await post(path, body, {}, unsigned.url);
      expect(signed.headers.get('signature')).not.toBeNull();
      expect(plain.headers.get('signature')).toBeNull();
      expect(signed.body).toBe(plain.body);
    }
    const success = await post('/auth', await licenseBody());
    expect(success.body).toBe(JSON.stringify(JSON.parse(success.body)));
    expect(Object.keys(JSON.parse(success.body))).toEqual(['success', 'message', 'data']);
    expect(Object.keys(JSON.parse(success.body).data)).toEqual([
      'key', 'created_at', 'expires_at', 'initial_duration', 'first_used_at', 'hwid_lock', 'last_hwid_reset_at',
      'hwid_reset_cooldown', 'hwid_reset_allowed', 'username', 'last_login', 'subscription_level', 'subscription_name',
    ]);
  });

  it('signs a 500 too, with the key the container holds', async () => {
    const { verifyAnswer } = await docsVerifier();
    const client = createTestClient(env.config);
    const deps = createDeps(env.config, { client, keyVault: env.deps.keyVault, logger: createLogger('silent') });
    injectFault(client, 'TransactWriteItemsCommand', () => awsError('ValidationException'));
    const server = await startLocalServer({ deps, port: 0 });
    servers.push(server);
    const sent = nonce();
    const answer = await post('/auth', await licenseBody({ nonce: sent }), {}, server.url);
    expect([answer.status, JSON.parse(answer.body)]).toEqual([500, { success: false, message: 'Internal server error' }]);
    expect(verifyAnswer(answer, { jwk, nonce: sent })).toBeDefined();
    client.destroy();
  });

  it('signs a 500 from a failed read with the key the container holds, without asking the failing store again', async () => {
    const { verifyAnswer } = await docsVerifier();
    const client = createTestClient(env.config);
    const deps = createDeps({ ...env.config, cacheTtlSeconds: 0 }, { client, keyVault: env.deps.keyVault, logger: createLogger('silent') });
    const server = await startLocalServer({ deps, port: 0 });
    servers.push(server);
    // A first answer has the container decrypt and keep the application's key; the cache is off, so no item is kept.
    expect((await post('/auth', await licenseBody(), {}, server.url)).status).toBe(200);
    const reads = injectFault(client, 'BatchGetItemCommand', () => awsError('ValidationException'));
    const sent = nonce();
    const answer = await post('/auth', await licenseBody({ nonce: sent }), {}, server.url);
    expect([answer.status, JSON.parse(answer.body)]).toEqual([500, { success: false, message: 'Internal server error' }]);
    expect(verifyAnswer(answer, { jwk, nonce: sent })).toBeDefined();
    expect(reads.attempts()).toBe(1);
    client.destroy();
  });
});

describe('offline tokens', () => {
  it('verify with the public key and the JWK, carry exactly the documented claims, and end by the lifetime', async () => {
    const { verifyOfflineToken } = await docsVerifier();
    const sent = nonce();
    const body = await licenseBody({ nonce: sent, offline_token: true, hwid: 'device-1' });
    const answer = await post('/auth', body);
    const { data } = JSON.parse(answer.body) as { data: Record<string, unknown> & { offline_token: string; expires_at: string } };
    const claims = await verifyOfflineToken(data.offline_token, { jwk, appId: owner.app_id, nonce: sent });
    expect(Object.keys(claims).sort()).toEqual(
      ['iss', 'sub', 'hwid', 'hwids', 'subscription_name', 'subscription_level', 'expires_at', 'features', 'iat', 'nbf', 'exp', 'jti', 'nonce'].sort(),
    );
    expect(claims).toMatchObject({
      iss: owner.app_id,
      sub: body.license,
      hwid: null,
      hwids: [],
      subscription_name: 'Pro',
      subscription_level: 1,
      expires_at: data.expires_at,
      nonce: sent,
    });
    expect(claims.nbf).toBe(claims.iat);
    expect(claims.exp).toBe(claims.iat! + 7 * 86400);
    expect(decodeProtectedHeader(data.offline_token)).toEqual({ alg: 'EdDSA', kid: jwk.kid, typ: 'JWT' });
    const pem = (JSON.parse((await post('/app/signing-key', { app_id: owner.app_id }, owner.auth)).body) as { data: { public_key_pem: string } }).data.public_key_pem;
    const [header, payload, signature] = data.offline_token.split('.');
    expect(verify(null, Buffer.from(`${header}.${payload}`), createPublicKey(pem), Buffer.from(signature!, 'base64url'))).toBe(true);
    await expect(jwtVerify(data.offline_token, await importJWK(otherJwk, 'EdDSA'))).rejects.toThrow();
  });

  it('never outlive the license, follow the application’s lifetime, name the bound device, and leave out an unsent nonce', async () => {
    const { verifyOfflineToken } = await docsVerifier();
    const soon = new Date(Date.now() + 3600_000).toISOString();
    const used = await seedLicense(env.deps, subscription, {
      first_used_at: new Date().toISOString(),
      expires_at: soon,
      last_login: new Date().toISOString(),
      hwid_lock: true,
      hwid: 'device-9',
    });
    const answer = JSON.parse((await post('/auth', { app_id: owner.app_id, license: used.key, hwid: 'device-9', offline_token: true })).body);
    const claims = await verifyOfflineToken(answer.data.offline_token, { jwk, appId: owner.app_id });
    expect(claims.exp).toBe(Math.floor(Date.parse(soon) / 1000));
    expect(claims).toMatchObject({ hwid: 'device-9', hwids: ['device-9'] });
    expect(claims).not.toHaveProperty('nonce');

    const set = await post('/app/settings', { app_id: other.app_id, offline_token_ttl: 120 }, other.auth);
    expect(JSON.parse(set.body)).toEqual({
      success: true,
      data: { app_id: other.app_id, offline_token_ttl: 120, default_hwid_reset_allowed: true, default_hwid_reset_interval: 0, max_borrow_seconds: 604800, max_license_file_seconds: 2592000, trial: null, portal: { enabled: false, allow_device_release: true, allow_license_files: true } },
    });
    const otherSubscription = await seedSubscription(env.deps, other);
    const otherLicense = await seedLicense(env.deps, otherSubscription);
    // The app item is cached for CACHE_TTL_SECONDS; a fresh server reads the new lifetime at once.
    const fresh = await startLocalServer({ deps: createDeps(env.config, { client: env.client, keyVault: env.deps.keyVault }), port: 0 });
    servers.push(fresh);
    const short = JSON.parse((await post('/auth', { app_id: other.app_id, license: otherLicense.key, offline_token: true }, {}, fresh.url)).body);
    const shortClaims = await verifyOfflineToken(short.data.offline_token, { jwk: otherJwk, appId: other.app_id });
    expect(shortClaims.exp! - shortClaims.iat!).toBe(120);
  });

  it('are never given on a failure, nor without the flag', async () => {
    const paused = await seedLicense(env.deps, subscription, { status: 'paused' });
    const failures = [
      await post('/auth', { app_id: owner.app_id, license: paused.key, offline_token: true }),
      await post('/auth', { app_id: owner.app_id, license: 'NOPE-NOPE', offline_token: true }),
      await post('/auth', { ...(await licenseBody({ offline_token: true })), nonce: 'bad' }),
    ];
    for (const failure of failures) {
      expect(failure.status).toBeGreaterThanOrEqual(400);
      expect(failure.body).not.toContain('offline_token');
    }
    const plain = JSON.parse((await post('/auth', await licenseBody({ offline_token: 'yes' }))).body);
    expect(plain.success).toBe(true);
    expect(plain.data).not.toHaveProperty('offline_token');
  });
});

describe('signing keys', () => {
  it('are shown by /app/signing-key as the documented public key, to the owner only', async () => {
    const answer = JSON.parse((await post('/app/signing-key', { app_id: owner.app_id }, owner.auth)).body);
    const data = answer.data;
    expect(Object.keys(data).sort()).toEqual(['algorithm', 'created_at', 'jwk', 'key_id', 'public_key', 'public_key_pem']);
    expect(data.algorithm).toBe('ed25519');
    expect(Buffer.from(data.public_key, 'base64url')).toHaveLength(32);
    expect(data.key_id).toBe(await calculateJwkThumbprint({ kty: 'OKP', crv: 'Ed25519', x: data.public_key }));
    expect(data.jwk).toEqual({ kty: 'OKP', crv: 'Ed25519', x: data.public_key, kid: data.key_id, alg: 'EdDSA', use: 'sig' });
    expect(createPublicKey(data.public_key_pem).export({ format: 'jwk' })).toEqual({ kty: 'OKP', crv: 'Ed25519', x: data.public_key });

    const foreign = await post('/app/signing-key', { app_id: other.app_id }, owner.auth);
    expect([foreign.status, JSON.parse(foreign.body).error_code]).toEqual([403, 'ACCESS_DENIED']);
    const missing = await post('/app/signing-key', { app_id: newId() }, owner.auth);
    expect([missing.status, JSON.parse(missing.body).error_code]).toEqual([404, 'APP_NOT_FOUND']);
    const invalid = await post('/app/signing-key', { app_id: 'nope' }, owner.auth);
    expect([invalid.status, JSON.parse(invalid.body).error_code]).toEqual([400, 'INVALID_INPUT']);
  });

  it('are made once for an application from before signing, however many cold containers race', async () => {
    const { team_id } = await owners.createTeam(env.deps, {});
    const appId = newId();
    await apps.create(env.deps.table, { app_id: appId, team_id, name: 'Old', status: 'active', created_at: new Date().toISOString() });
    const containers = Array.from({ length: 4 }, () => createDeps(env.config, { client: env.client, keyVault: env.deps.keyVault }));
    const app = (await apps.get(env.deps.table, appId))!;
    const signers = await Promise.all(containers.map((deps) => signerOf(deps, app)));
    const stored = (await apps.get(env.deps.table, appId))!.signing_key!;
    expect(new Set(signers.map((signer) => signer.keyId))).toEqual(new Set([stored.key_id]));
  });

  it('are made for an application from before signing by the first /auth or /app/signing-key that needs one', async () => {
    const oldApp = async () => {
      const appId = newId();
      await apps.create(env.deps.table, { app_id: appId, team_id: owner.team_id, name: 'Old', status: 'active', created_at: new Date().toISOString() });
      return appId;
    };
    const [byAuth, byOwner] = [await oldApp(), await oldApp()];
    const answer = await post('/auth', { app_id: byAuth, license: 'NOPE-NOPE' });
    const shown = JSON.parse((await post('/app/signing-key', { app_id: byOwner }, owner.auth)).body) as { data: { key_id: string } };
    expect(answer.headers.get('signature-input')).toContain(`keyid="${(await apps.get(env.deps.table, byAuth))!.signing_key!.key_id}"`);
    expect(shown.data.key_id).toBe((await apps.get(env.deps.table, byOwner))!.signing_key!.key_id);
  });

  it('are decrypted at most once per application per container', async () => {
    let decrypts = 0;
    const vault = env.deps.keyVault!;
    const counting: KeyVault = { encrypt: vault.encrypt, decrypt: (appId, ciphertext) => (decrypts++, vault.decrypt(appId, ciphertext)) };
    const deps = createDeps(env.config, { client: env.client, keyVault: counting });
    const server = await startLocalServer({ deps, port: 0 });
    servers.push(server);
    await Promise.all(Array.from({ length: 5 }, async () => post('/auth', { app_id: owner.app_id, license: 'NOPE-NOPE' }, {}, server.url)));
    await post('/auth', await licenseBody({ offline_token: true }), {}, server.url);
    expect(decrypts).toBe(1);
  });

  it('rotate: from then on only the new key signs', async () => {
    const { verifyAnswer } = await docsVerifier();
    const rotating = await createOwner(env.deps);
    const before = await publicJwk(rotating);
    const server = await startLocalServer({ deps: createDeps({ ...env.config, cacheTtlSeconds: 0 }, { client: env.client, keyVault: env.deps.keyVault }), port: 0 });
    servers.push(server);
    const old = await post('/auth', { app_id: rotating.app_id, license: 'NOPE-NOPE' }, {}, server.url);
    expect(() => verifyAnswer(old, { jwk: before })).not.toThrow();
    const rotated = await owners.rotateAppSigningKey(env.deps, { appId: rotating.app_id });
    const after = await publicJwk(rotating);
    expect(after.kid).toBe(rotated.key_id);
    expect(after.kid).not.toBe(before.kid);
    const answer = await post('/auth', { app_id: rotating.app_id, license: 'NOPE-NOPE' }, {}, server.url);
    expect(() => verifyAnswer(answer, { jwk: after })).not.toThrow();
    expect(() => verifyAnswer(answer, { jwk: before })).toThrow();
  });

  it('/app/settings answers the lifetime, bounds it to 60 s .. 365 days, and keeps other owners out', async () => {
    const fresh = await createOwner(env.deps);
    expect(JSON.parse((await post('/app/settings', { app_id: fresh.app_id }, fresh.auth)).body)).toEqual({
      success: true,
      data: { app_id: fresh.app_id, offline_token_ttl: 604800, default_hwid_reset_allowed: true, default_hwid_reset_interval: 0, max_borrow_seconds: 604800, max_license_file_seconds: 2592000, trial: null, portal: { enabled: false, allow_device_release: true, allow_license_files: true } },
    });
    for (const ttl of [59, 365 * 86400 + 1, 1.5, '120']) {
      const answer = await post('/app/settings', { app_id: fresh.app_id, offline_token_ttl: ttl }, fresh.auth);
      expect([answer.status, JSON.parse(answer.body).error_code]).toEqual([400, 'INVALID_INPUT']);
    }
    for (const ttl of [60, 365 * 86400]) {
      expect(JSON.parse((await post('/app/settings', { app_id: fresh.app_id, offline_token_ttl: ttl }, fresh.auth)).body).data.offline_token_ttl).toBe(ttl);
    }
    const foreign = await post('/app/settings', { app_id: fresh.app_id, offline_token_ttl: 120 }, owner.auth);
    expect([foreign.status, JSON.parse(foreign.body).error_code]).toEqual([403, 'ACCESS_DENIED']);
  });
});

describe('the private key', () => {
  it('appears in no answer and no log line', async () => {
    const forms: string[] = [];
    for (const appOwner of [owner, other]) {
      const app = (await apps.get(env.deps.table, appOwner.app_id))!;
      const pkcs8 = Buffer.from(await env.deps.keyVault!.decrypt(appOwner.app_id, app.signing_key!.private_key_ciphertext));
      const seed = pkcs8.subarray(pkcs8.length - 32);
      forms.push(...[pkcs8, seed].flatMap((bytes) => [bytes.toString('base64'), bytes.toString('base64url'), bytes.toString('hex')]));
      forms.push(app.signing_key!.private_key_ciphertext);
    }
    const everything = [...seen, ...env.logs.lines].join('\n');
    expect(seen.length).toBeGreaterThan(50);
    for (const form of forms) expect(everything).not.toContain(form);
  });
});

