import { createHash, createHmac, randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { api, startService, type StartedService } from '../test/support/browser';

/**
 * `npm run record-answers`: clients/testdata/answers.json, the one set of
 * recorded answers and offline tokens every client library's own suite checks
 * (clients/testdata/README.md). Real answers of a fresh `npm start` (a request
 * made as a client library makes it: a fresh nonce in the body, the body's
 * `Content-Digest` sent), and from them the hostile ones a cracked machine's
 * proxy would hand a program: tampered, replayed, relayed, signed by another
 * application, unsigned; and license files made from activation requests with
 * their hostile variants. Each case says what a library must make of it, as the
 * TypeScript library does (test/clients/answer-vectors.test.ts holds it to that).
 */

interface Exchange {
  request: { path: string; body: string; content_digest: string; nonce: string; license: string | null };
  answer: { status: number; headers: Record<string, string>; body: string };
}

type Expect = { ok: true; message: string } | { ok: true; refused: string } | { code: string };

const contentDigest = (body: string) => `sha-256=:${createHash('sha256').update(body).digest('base64')}:`;
const signedHeaders = ['content-type', 'content-digest', 'signature-input', 'signature'];

async function exchange(service: StartedService, path: string, fields: Record<string, unknown>): Promise<Exchange> {
  const nonce = randomBytes(18).toString('base64url');
  const body = JSON.stringify({ ...fields, nonce });
  const digest = contentDigest(body);
  const response = await fetch(`${service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-digest': digest }, body });
  const headers: Record<string, string> = {};
  for (const name of signedHeaders) {
    const value = response.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  const license = typeof fields.license === 'string' ? fields.license : null;
  return { request: { path, body, content_digest: digest, nonce, license }, answer: { status: response.status, headers, body: await response.text() } };
}

const answerCase = (name: string, about: string, recorded: Exchange, expect: Expect) => ({ name, about, ...recorded, expect });

/** The answer with its body changed: one character of a value swapped, the JSON still valid. */
function tamperedBody(body: string): string {
  const at = body.indexOf('"expires_at":"') + '"expires_at":"'.length;
  if (at < '"expires_at":"'.length) throw new Error(`no expires_at to tamper with in ${body}`);
  const digit = body[at + 3] === '9' ? '8' : '9';
  return `${body.slice(0, at + 3)}${digit}${body.slice(at + 4)}`;
}

const b64url = (value: string | Buffer) => Buffer.from(value).toString('base64url');
const decodePart = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;

async function record(service: StartedService) {
  const app_id = service.appId;
  const apiCall = async <T>(path: string, body: object): Promise<T> => {
    const answer = await api<T>(service, path, body);
    if (answer.status !== 200) throw new Error(`${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    return answer.body.data;
  };
  const signingKey = await apiCall<{ public_key_pem: string; jwk: Record<string, string> }>('/app/signing-key', { app_id });
  const { subscription_id } = await apiCall<{ subscription_id: string }>('/subscription/create', { app_id, name: 'Pro', level: 1 });
  const newLicense = async (appId: string, subscription: string) =>
    (await apiCall<{ key: string }>('/license/create', { app_id: appId, subscription_id: subscription, duration_unit: 'days', duration_value: 30, hwid_lock: true })).key;
  const [license, other, paused] = [await newLicense(app_id, subscription_id), await newLicense(app_id, subscription_id), await newLicense(app_id, subscription_id)];
  await apiCall('/license/update-status', { license_key: paused, status: 'paused' });

  const secondApp = (await apiCall<{ app_id: string }>('/app/create', { name: 'Another application' })).app_id;
  const secondTier = (await apiCall<{ subscription_id: string }>('/subscription/create', { app_id: secondApp, name: 'Pro', level: 1 })).subscription_id;
  const secondLicense = await newLicense(secondApp, secondTier);

  const hwid = 'recorded-device-1';
  const ok = await exchange(service, '/auth', { app_id, license, hwid, offline_token: true });
  const okData = JSON.parse(ok.answer.body) as { message: string; data: { offline_token: string } };
  const again = await exchange(service, '/auth', { app_id, license, hwid });
  const otherAnswer = await exchange(service, '/auth', { app_id, license: other, hwid: 'recorded-device-2' });
  const refused = await exchange(service, '/auth', { app_id, license: paused, hwid });
  const refusedMessage = (JSON.parse(refused.answer.body) as { message: string }).message;
  const foreign = await exchange(service, '/auth', { app_id: secondApp, license: secondLicense, hwid, offline_token: true });
  const foreignToken = (JSON.parse(foreign.answer.body) as { data: { offline_token: string } }).data.offline_token;

  const withHeaders = (recorded: Exchange, headers: Record<string, string>): Exchange => ({ ...recorded, answer: { ...recorded.answer, headers } });
  const input = ok.answer.headers['signature-input']!;
  const signature = ok.answer.headers.signature!;
  const unsigned = Object.fromEntries(Object.entries(ok.answer.headers).filter(([name]) => name === 'content-type'));
  const answers = [
    answerCase('auth-ok', 'the answer to this request, signed by the pinned key', ok, { ok: true, message: okData.message }),
    answerCase('auth-refused', "a refusal the service signed: the library raises the service's message", refused, { ok: true, refused: refusedMessage }),
    answerCase('tampered-body', 'one character of the body changed, the headers kept', { ...ok, answer: { ...ok.answer, body: tamperedBody(ok.answer.body) } }, { code: 'INVALID_SIGNATURE' }),
    answerCase(
      'tampered-body-and-digest',
      'the body changed and its Content-Digest computed again, the signature kept',
      (() => {
        const body = tamperedBody(ok.answer.body);
        return { ...ok, answer: { ...ok.answer, body, headers: { ...ok.answer.headers, 'content-digest': contentDigest(body) } } };
      })(),
      { code: 'INVALID_SIGNATURE' },
    ),
    answerCase('tampered-status', "a signed refusal's status changed to 200", { ...refused, answer: { ...refused.answer, status: 200 } }, { code: 'INVALID_SIGNATURE' }),
    answerCase('replayed', 'the answer to an earlier request (another nonce) for the same license and device', { request: again.request, answer: ok.answer }, { code: 'INVALID_SIGNATURE' }),
    answerCase('relayed', "another license's answer, to another request, handed to this one", { request: ok.request, answer: otherAnswer.answer }, { code: 'INVALID_SIGNATURE' }),
    answerCase('other-application-key', "another application's answer to its own request, signed by its key, not the pinned one", foreign, { code: 'INVALID_SIGNATURE' }),
    answerCase('unsigned', 'the answer with its Content-Digest, Signature-Input and Signature removed', withHeaders(ok, unsigned), { code: 'INVALID_SIGNATURE' }),
    answerCase('no-signature', 'the answer with its Signature removed', withHeaders(ok, { ...ok.answer.headers, signature: '' }), { code: 'INVALID_SIGNATURE' }),
    answerCase('extra-parameter', 'Signature-Input with a parameter the service never sends', withHeaders(ok, { ...ok.answer.headers, 'signature-input': `${input};tag="x"` }), {
      code: 'INVALID_SIGNATURE',
    }),
    answerCase(
      'other-nonce-in-input',
      "Signature-Input naming another request's nonce",
      withHeaders(ok, { ...ok.answer.headers, 'signature-input': input.replace(`nonce="${ok.request.nonce}"`, `nonce="${again.request.nonce}"`) }),
      { code: 'INVALID_SIGNATURE' },
    ),
    answerCase('truncated-signature', 'the signature cut short', withHeaders(ok, { ...ok.answer.headers, signature: `${signature.slice(0, 40)}:` }), { code: 'INVALID_SIGNATURE' }),
  ];

  const token = okData.data.offline_token;
  const [header, payload, tokenSignature] = token.split('.') as [string, string, string];
  const claims = decodePart(payload) as { iat: number; nbf: number; exp: number };
  const forged = (newHeader: Record<string, unknown>, newPayload: Record<string, unknown>, sign: (signingInput: string) => string) => {
    const signingInput = `${b64url(JSON.stringify(newHeader))}.${b64url(JSON.stringify(newPayload))}`;
    return `${signingInput}.${sign(signingInput)}`;
  };
  const expected: { app_id: string; license: string; hwid: string; nonce: string | null } = { app_id, license, hwid, nonce: ok.request.nonce };
  const tokenCase = (name: string, about: string, value: string, overrides: Partial<typeof expected> & { now?: number }, expect: { ok: true } | { code: string }) => ({
    name,
    about,
    token: value,
    ...expected,
    now: claims.iat + 60,
    ...overrides,
    expect,
  });
  const tokens = [
    tokenCase('token-ok', 'the offline token of auth-ok, judged a minute after it was made', token, {}, { ok: true }),
    tokenCase('token-stored', 'the same token read back from storage: no nonce to match, judged a day later', token, { nonce: null, now: claims.iat + 86_400 }, { ok: true }),
    tokenCase('token-expired', 'judged a second past its exp', token, { nonce: null, now: claims.exp + 1 }, { code: 'OFFLINE_TOKEN_EXPIRED' }),
    tokenCase('token-other-application', 'expected from another application (iss differs)', token, { app_id: secondApp }, { code: 'INVALID_SIGNATURE' }),
    tokenCase('token-other-license', 'expected for another license (sub differs)', token, { license: other }, { code: 'INVALID_SIGNATURE' }),
    tokenCase('token-other-device', 'expected on another device (hwid differs)', token, { hwid: 'recorded-device-2' }, { code: 'INVALID_SIGNATURE' }),
    tokenCase('token-other-nonce', 'expected with another request\'s nonce', token, { nonce: again.request.nonce }, { code: 'INVALID_SIGNATURE' }),
    tokenCase('token-other-key', "another application's token, signed by its key, expected as its own", foreignToken, { app_id: secondApp, license: secondLicense, nonce: foreign.request.nonce }, { code: 'INVALID_SIGNATURE' }),
    tokenCase('token-alg-none', 'the claims under an unsigned header (alg none)', forged({ alg: 'none', typ: 'JWT' }, decodePart(payload), () => ''), {}, { code: 'INVALID_SIGNATURE' }),
    tokenCase(
      'token-hs256-public-key',
      'the claims under HS256, keyed with the public key (algorithm confusion)',
      forged({ ...decodePart(header), alg: 'HS256' }, decodePart(payload), (signingInput) => createHmac('sha256', signingKey.public_key_pem).update(signingInput).digest('base64url')),
      {},
      { code: 'INVALID_SIGNATURE' },
    ),
    tokenCase('token-tampered-payload', 'exp moved a year on, the signature kept', `${header}.${b64url(JSON.stringify({ ...decodePart(payload), exp: claims.exp + 31_536_000 }))}.${tokenSignature}`, {}, { code: 'INVALID_SIGNATURE' }),
    tokenCase('token-wrong-typ', 'typ changed to license+jwt, the signature kept', `${b64url(JSON.stringify({ ...decodePart(header), typ: 'license+jwt' }))}.${payload}.${tokenSignature}`, {}, { code: 'INVALID_SIGNATURE' }),
  ];

  // License files made from activation requests, as a device that is never online gets them, plain and encrypted.
  const fileLicense = await newLicense(app_id, subscription_id);
  const fileDevice = 'recorded-file-device';
  const madeFile = async (fields: Record<string, unknown>) => {
    const nonce = randomBytes(18).toString('base64url');
    const request = `lfr1.${b64url(JSON.stringify({ ...fields, nonce, lifetime_seconds: 86_400 }))}`;
    const answer = await fetch(`${service.url}/license-file`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ request }) });
    const body = (await answer.json()) as { data?: { license_file: string } };
    if (answer.status !== 200 || !body.data) throw new Error(`/license-file answered ${answer.status}: ${JSON.stringify(body)}`);
    return { file: body.data.license_file, nonce };
  };
  const plain = await madeFile({ app_id, license: fileLicense, hwid: fileDevice });
  const encrypted = await madeFile({ app_id, license: fileLicense, hwid: fileDevice, encrypt: true });
  const foreignFile = await madeFile({ app_id: secondApp, license: secondLicense, hwid });
  const [fileHeader, filePayload, fileSignature] = plain.file.split('.') as [string, string, string];
  const fileClaims = decodePart(filePayload) as { iat: number; nbf: number; exp: number };
  const fileExpected: { app_id: string; license: string; hwid: string; nonce: string | null } = { app_id, license: fileLicense, hwid: fileDevice, nonce: plain.nonce };
  const fileCase = (name: string, about: string, value: string, overrides: Partial<typeof fileExpected> & { now?: number }, expect: { ok: true } | { code: string }) => ({
    name,
    about,
    file: value,
    ...fileExpected,
    now: fileClaims.iat + 60,
    ...overrides,
    expect,
  });
  const jweParts = encrypted.file.split('.');
  const flipped = (part: string) => `${part.slice(0, 10)}${part[10] === 'A' ? 'B' : 'A'}${part.slice(11)}`;
  const mismatch = { code: 'LICENSE_FILE_MISMATCH' };
  const files = [
    fileCase('file-ok', 'a file made from an activation request, with that request\'s nonce, judged a minute after it was made', plain.file, {}, { ok: true }),
    fileCase('file-stored', 'the same file read back from storage: no nonce to match, judged an hour later', plain.file, { nonce: null, now: fileClaims.iat + 3600 }, { ok: true }),
    fileCase('file-encrypted-ok', 'an encrypted file, opened with its license key and device', encrypted.file, { nonce: encrypted.nonce }, { ok: true }),
    fileCase('file-expired', 'judged a second past its exp', plain.file, { nonce: null, now: fileClaims.exp + 1 }, { code: 'LICENSE_FILE_EXPIRED' }),
    fileCase('file-not-yet-valid', 'judged an hour before its nbf', plain.file, { nonce: null, now: fileClaims.nbf - 3600 }, mismatch),
    fileCase('file-other-application', 'expected from another application (iss differs)', plain.file, { app_id: secondApp }, mismatch),
    fileCase('file-other-license', 'expected for another license (sub differs)', plain.file, { license: other }, mismatch),
    fileCase('file-other-device', 'expected on another device (hwid differs)', plain.file, { hwid: 'recorded-device-2' }, mismatch),
    fileCase('file-other-nonce', "expected with another request's nonce", plain.file, { nonce: encrypted.nonce }, mismatch),
    fileCase('file-other-key', "another application's file, signed by its key, expected as its own", foreignFile.file, { app_id: secondApp, license: secondLicense, hwid, nonce: foreignFile.nonce }, { code: 'INVALID_SIGNATURE' }),
    fileCase('file-tampered-payload', 'exp moved a year on, the signature kept', `${fileHeader}.${b64url(JSON.stringify({ ...decodePart(filePayload), exp: fileClaims.exp + 31_536_000 }))}.${fileSignature}`, {}, { code: 'INVALID_SIGNATURE' }),
    fileCase('file-offline-token', 'the offline token of auth-ok given as a license file (typ JWT)', token, { license, hwid, nonce: null }, mismatch),
    fileCase('file-encrypted-other-device', 'the encrypted file opened for another device', encrypted.file, { hwid: 'recorded-device-2', nonce: encrypted.nonce }, mismatch),
    fileCase('file-encrypted-tampered', 'one character of the encrypted file\'s ciphertext changed', [...jweParts.slice(0, 3), flipped(jweParts[3]!), jweParts[4]].join('.'), { nonce: encrypted.nonce }, mismatch),
  ];

  return { app_id, public_key_pem: signingKey.public_key_pem, public_jwk: { kty: 'OKP', crv: 'Ed25519', x: signingKey.jwk.x }, answers, tokens, files };
}

const service = await startService();
try {
  const recorded = await record(service);
  const folder = join(import.meta.dirname, '..', 'clients', 'testdata');
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'answers.json'), `${JSON.stringify(recorded, null, 2)}\n`);
  process.stdout.write(`wrote ${join(folder, 'answers.json')}: ${recorded.answers.length} answers, ${recorded.tokens.length} tokens, ${recorded.files.length} license files\n`);
} finally {
  await service.stop();
}
