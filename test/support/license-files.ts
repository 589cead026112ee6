import { generateKeyPairSync, hkdfSync, randomUUID, type KeyObject } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { calculateJwkThumbprint, CompactEncrypt, SignJWT } from 'jose';
import { answerSignatureHeaders } from '#core/signing/signatures';

/**
 * What the app client libraries' tests need of a service that makes license
 * files (clients/app-typescript/README.md#license-files-and-air-gapped-devices):
 * a test Ed25519 key standing in for an
 * application's, files and offline tokens made with it as the service makes
 * them (jose), and a stand-in on loopback whose answers are signed with it by
 * the service's own signing code.
 */
export interface TestSigningKey {
  privateKey: KeyObject;
  jwk: { kty: 'OKP'; crv: 'Ed25519'; x: string };
  pem: string;
  /** RFC 7638 thumbprint of the public key: the `kid` of everything it signs. */
  keyId: string;
}

export async function testSigningKey(): Promise<TestSigningKey> {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const { x } = publicKey.export({ format: 'jwk' }) as { x: string };
  const jwk = { kty: 'OKP' as const, crv: 'Ed25519' as const, x };
  return { privateKey, jwk, pem: publicKey.export({ format: 'pem', type: 'spki' }) as string, keyId: await calculateJwkThumbprint(jwk) };
}

export const day = 86_400;

/** The license data a check answers, as a file carries it. */
export const licenseData = (license: string, hwid: string, now: number, fields: Record<string, unknown> = {}) => ({
  key: license,
  created_at: new Date((now - 10 * day) * 1000).toISOString(),
  expires_at: null,
  initial_duration: 'lifetime',
  first_used_at: new Date((now - 10 * day) * 1000).toISOString(),
  hwid_lock: true,
  last_hwid_reset_at: null,
  hwid_reset_cooldown: 0,
  hwid_reset_allowed: true,
  username: null,
  last_login: new Date(now * 1000).toISOString(),
  subscription_level: 2,
  subscription_name: 'Pro',
  hwids: [hwid],
  max_devices: 1,
  features: ['export.pdf'],
  ...fields,
});

/** The key of an encrypted file: HKDF-SHA256 of the license key, salted with the HWID, info "license-file". */
export const fileKey = (license: string, hwid: string) => new Uint8Array(hkdfSync('sha256', Buffer.from(license), Buffer.from(hwid), Buffer.from('license-file'), 32));

/** A compact JWE (`dir`, `A256GCM`) of a signed file. */
export const encryptFile = (jws: string, secret: Uint8Array, cty = 'license+jwt') =>
  new CompactEncrypt(new TextEncoder().encode(jws)).setProtectedHeader({ alg: 'dir', enc: 'A256GCM', cty }).encrypt(secret);

export interface FileToMint {
  appId: string;
  license: string;
  hwid: string;
  /** Seconds since the epoch: the file's `iat` and `nbf`, and 30 days before its `exp`. */
  now: number;
  /** The activation request's nonce; with it the file is air-gapped. */
  nonce?: string | undefined;
  /** Claims over the service's (undefined drops one). */
  claims?: Record<string, unknown>;
  header?: Record<string, unknown>;
  /** Signs instead of the key the header names. */
  signer?: KeyObject;
  /** Encrypts for this license key and HWID (the file's own when true). */
  encrypt?: boolean | { license: string; hwid: string };
}

/** An offline token's claims, for `lifetime` seconds from `now`. */
const tokenClaims = (appId: string, license: string, hwid: string, now: number, lifetime: number) => ({
  iss: appId,
  sub: license,
  hwid,
  hwids: [hwid],
  subscription_name: 'Pro',
  subscription_level: 2,
  expires_at: null,
  features: ['export.pdf'],
  iat: now,
  nbf: now,
  exp: now + lifetime,
  jti: randomUUID(),
});

/** A license file as the service makes it: the offline token's claims plus `data` and `air_gapped`. */
export async function mintLicenseFile(key: TestSigningKey, file: FileToMint): Promise<string> {
  const { appId, license, hwid, now, nonce, claims = {}, header = {}, signer = key.privateKey, encrypt = false } = file;
  const payload = {
    ...tokenClaims(appId, license, hwid, now, 30 * day),
    ...(nonce === undefined ? {} : { nonce }),
    data: licenseData(license, hwid, now),
    air_gapped: nonce !== undefined,
    ...claims,
  };
  const jws = await new SignJWT(payload).setProtectedHeader({ alg: 'EdDSA', kid: key.keyId, typ: 'license+jwt', ...header }).sign(signer);
  if (encrypt === false) return jws;
  const device = encrypt === true ? { license, hwid } : encrypt;
  return encryptFile(jws, fileKey(device.license, device.hwid));
}

/** An offline token as `/auth` gives it. */
export const mintOfflineToken = (key: TestSigningKey, token: { appId: string; license: string; hwid: string; now: number; claims?: Record<string, unknown> }) =>
  new SignJWT({ ...tokenClaims(token.appId, token.license, token.hwid, token.now, 7 * day), ...token.claims })
    .setProtectedHeader({ alg: 'EdDSA', kid: key.keyId, typ: 'JWT' })
    .sign(key.privateKey);

/** The fields of an activation request (`lfr1.`) or return code (`lfx1.`): unpadded base64url of UTF-8 JSON. */
export function decodeCode(code: string, prefix: 'lfr1.' | 'lfx1.'): Record<string, unknown> {
  if (!code.startsWith(prefix)) throw new Error(`${code} does not start with ${prefix}`);
  const body = code.slice(prefix.length);
  if (!/^[A-Za-z0-9_-]+$/.test(body)) throw new Error(`${body} is no unpadded base64url`);
  return JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Record<string, unknown>;
}

export interface StandInAnswer {
  status: number;
  body: unknown;
}

export interface SignedStandIn {
  url: string;
  /** What each path answers: an answer, or a function of the request body giving one; other paths answer 404. */
  answers: Map<string, StandInAnswer | ((body: Record<string, unknown>) => StandInAnswer | Promise<StandInAnswer>)>;
  /** Every request's path and body, in order. */
  seen: { path: string; body: Record<string, unknown> }[];
  close(): Promise<void>;
}

/**
 * A stand-in for the service on loopback, for routes a test plays: each answer
 * is signed as the service signs (RFC 9421 over status, body digest and the
 * request's digest, with the request's nonce) with the test key.
 */
export async function startSignedStandIn(key: TestSigningKey): Promise<SignedStandIn> {
  const answers: SignedStandIn['answers'] = new Map();
  const seen: SignedStandIn['seen'] = [];
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    const path = request.url ?? '/';
    seen.push({ path, body });
    const planned = answers.get(path) ?? { status: 404, body: { success: false, message: 'Not Found' } };
    const answer = typeof planned === 'function' ? await planned(body) : planned;
    const text = JSON.stringify(answer.body);
    const headers = answerSignatureHeaders({
      status: answer.status,
      body: text,
      keyId: key.keyId,
      privateKey: key.privateKey,
      created: Math.floor(Date.now() / 1000),
      nonce: typeof body.nonce === 'string' ? body.nonce : undefined,
      requestDigest: typeof request.headers['content-digest'] === 'string' ? request.headers['content-digest'] : undefined,
    });
    response.writeHead(answer.status, { 'content-type': 'application/json', ...headers });
    response.end(text);
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    answers,
    seen,
    close: () => new Promise<void>((closed) => server.close(() => closed())),
  };
}

/**
 * Each a file a device must refuse, with the code it refuses it with, made for
 * a waiting request by `key()` (signing as the application) or `other()` (another
 * key) at the test's clock `now()`: the cases every client library is held to.
 */
export function fileRefusals(key: () => TestSigningKey, other: () => TestSigningKey, appId: string, now: () => number) {
  const mint = (file: Omit<FileToMint, 'appId' | 'now'>) => mintLicenseFile(key(), { appId, now: now(), ...file });
  const table: [name: string, code: string, make: (request: { license: string; hwid: string; nonce: string }) => Promise<string>][] = [
    ['signed by another key, naming ours', 'INVALID_SIGNATURE', (request) => mint({ ...request, signer: other().privateKey })],
    ['signed by another key, naming it', 'INVALID_SIGNATURE', (request) => mintLicenseFile(other(), { appId, now: now(), ...request })],
    [
      'with its claims altered',
      'INVALID_SIGNATURE',
      async (request) => {
        const [header, payload, signature] = (await mint(request)).split('.');
        const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as { exp: number };
        return `${header}.${Buffer.from(JSON.stringify({ ...claims, exp: claims.exp + 365 * day })).toString('base64url')}.${signature}`;
      },
    ],
    [
      'signed with another algorithm',
      'INVALID_SIGNATURE',
      async (request) => `${Buffer.from(JSON.stringify({ alg: 'none', kid: key().keyId, typ: 'license+jwt' })).toString('base64url')}.${(await mint(request)).split('.')[1]}.`,
    ],
    ['for another license', 'LICENSE_FILE_MISMATCH', (request) => mint({ ...request, license: 'ANOTHER-KEY' })],
    ['for another device', 'LICENSE_FILE_MISMATCH', (request) => mint({ ...request, hwid: 'another-device' })],
    ['for another application', 'LICENSE_FILE_MISMATCH', (request) => mint({ ...request, claims: { iss: randomUUID() } })],
    ['made from another request (nonce)', 'LICENSE_FILE_MISMATCH', (request) => mint({ ...request, nonce: 'another-request-nonce' })],
    ['air-gapped without a nonce', 'LICENSE_FILE_MISMATCH', (request) => mint({ ...request, nonce: undefined, claims: { air_gapped: true } })],
    ['expired', 'LICENSE_FILE_EXPIRED', (request) => mint({ ...request, claims: { iat: now() - 31 * day, nbf: now() - 31 * day, exp: now() - 1 } })],
    ['not valid yet', 'LICENSE_FILE_MISMATCH', (request) => mint({ ...request, claims: { iat: now() + 3600, nbf: now() + 3600 } })],
    ['of another typ (an offline token)', 'LICENSE_FILE_MISMATCH', (request) => mint({ ...request, header: { typ: 'JWT' } })],
    ['whose data is another license’s', 'LICENSE_FILE_MISMATCH', (request) => mint({ ...request, claims: { data: licenseData('ANOTHER-KEY', request.hwid, now()) } })],
    ['without a jti', 'LICENSE_FILE_MISMATCH', (request) => mint({ ...request, claims: { jti: undefined } })],
    ['encrypted for another device', 'LICENSE_FILE_MISMATCH', (request) => mint({ ...request, encrypt: { license: request.license, hwid: 'another-device' } })],
    ['encrypted for another license', 'LICENSE_FILE_MISMATCH', (request) => mint({ ...request, encrypt: { license: 'ANOTHER-KEY', hwid: request.hwid } })],
    [
      'encrypted, then altered',
      'LICENSE_FILE_MISMATCH',
      async (request) => {
        const parts = (await mint({ ...request, encrypt: true })).split('.');
        const ciphertext = Buffer.from(parts[3]!, 'base64url');
        ciphertext[0] = ciphertext[0]! ^ 1;
        parts[3] = ciphertext.toString('base64url');
        return parts.join('.');
      },
    ],
    ['encrypted with another content type', 'LICENSE_FILE_MISMATCH', async (request) => encryptFile(await mint(request), fileKey(request.license, request.hwid), 'JWT')],
    ['no file at all', 'LICENSE_FILE_MISMATCH', async () => 'not a license file'],
  ];
  return table;
}
