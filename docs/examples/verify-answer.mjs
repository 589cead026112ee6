// Verifies a signed /auth answer and its offline token with the application's public key alone.
// Usage: BASE_URL=... APP_ID=... LICENSE=... PUBLIC_JWK='{"kty":"OKP",...}' node verify-answer.mjs
import { createHash, createPublicKey, randomBytes, verify } from 'node:crypto';
import { importJWK, jwtVerify } from 'jose';

/** Throws unless the answer was signed by this key, for this request's nonce, within `maxAgeSeconds`. */
export function verifyAnswer({ status, headers, body }, { jwk, nonce, maxAgeSeconds = 300, now = Date.now() }) {
  const digest = `sha-256=:${createHash('sha256').update(body).digest('base64')}:`;
  if (headers.get('content-digest') !== digest) throw new Error('body does not match Content-Digest');
  const input = headers.get('signature-input') ?? '';
  const created = Number(/;created=(\d+)/.exec(input)?.[1]);
  // Rebuild the parameters we expect (our key, our nonce) instead of trusting the ones sent.
  const params = `("@status" "content-digest");created=${created};keyid="${jwk.kid}";alg="ed25519"${nonce ? `;nonce="${nonce}"` : ''}`;
  if (input !== `sig1=${params}`) throw new Error('unexpected Signature-Input (another key or another nonce)');
  if (!(Math.abs(now / 1000 - created) <= maxAgeSeconds)) throw new Error('signature too old');
  const signature = /^sig1=:([A-Za-z0-9+/=]+):$/.exec(headers.get('signature') ?? '')?.[1];
  if (!signature) throw new Error('no signature');
  const base = `"@status": ${status}\n"content-digest": ${digest}\n"@signature-params": ${params}`;
  const key = createPublicKey({ key: jwk, format: 'jwk' });
  if (!verify(null, Buffer.from(base), key, Buffer.from(signature, 'base64'))) throw new Error('bad signature');
  return JSON.parse(body);
}

/** The offline token's claims, once its signature, issuer, lifetime and nonce check out. */
export async function verifyOfflineToken(token, { jwk, appId, nonce }) {
  const { payload } = await jwtVerify(token, await importJWK(jwk, 'EdDSA'), { issuer: appId, algorithms: ['EdDSA'] });
  if (nonce !== undefined && payload.nonce !== nonce) throw new Error('offline token for another request');
  return payload;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { BASE_URL, APP_ID, LICENSE, PUBLIC_JWK } = process.env;
  const jwk = JSON.parse(PUBLIC_JWK);
  const nonce = randomBytes(16).toString('base64url');
  const response = await fetch(`${BASE_URL}/auth`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ app_id: APP_ID, license: LICENSE, nonce, offline_token: true }),
  });
  const answer = verifyAnswer({ status: response.status, headers: response.headers, body: await response.text() }, { jwk, nonce });
  const claims = answer.success ? await verifyOfflineToken(answer.data.offline_token, { jwk, appId: APP_ID, nonce }) : null;
  console.log(JSON.stringify({ verified: true, status: response.status, message: answer.message, claims }));
}
