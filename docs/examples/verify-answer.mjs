// Verifies a signed /auth answer and its offline token with the application's public key alone.
// Usage: BASE_URL=... APP_ID=... LICENSE=... PUBLIC_JWK='{"kty":"OKP",...}' node verify-answer.mjs
import { createHash, createPublicKey, randomBytes, verify } from 'node:crypto';
import { importJWK, jwtVerify } from 'jose';

/** RFC 9530 Content-Digest of a body: send it with the request, then pass it to verifyAnswer as `requestDigest`. */
export const contentDigest = (body) => `sha-256=:${createHash('sha256').update(body).digest('base64')}:`;

/**
 * Throws unless the answer was signed by this key, for this request (its Content-Digest and nonce),
 * within `maxAgeSeconds`, and, on success, is about the license asked for. Returns the parsed body.
 */
export function verifyAnswer({ status, headers, body }, { jwk, nonce, requestDigest, license, maxAgeSeconds = 300, now = Date.now() }) {
  const digest = contentDigest(body);
  if (headers.get('content-digest') !== digest) throw new Error('body does not match Content-Digest');
  const input = headers.get('signature-input') ?? '';
  const created = Number(/;created=(\d+)/.exec(input)?.[1]);
  // Rebuild the parameters we expect (our key, our request, our nonce) instead of trusting the ones sent.
  const components = requestDigest ? '"@status" "content-digest" "content-digest";req' : '"@status" "content-digest"';
  const params = `(${components});created=${created};keyid="${jwk.kid}";alg="ed25519"${nonce ? `;nonce="${nonce}"` : ''}`;
  if (input !== `sig1=${params}`) throw new Error('unexpected Signature-Input (another key, request or nonce)');
  if (!(Math.abs(now / 1000 - created) <= maxAgeSeconds)) throw new Error('signature too old');
  const signature = /^sig1=:([A-Za-z0-9+/=]+):$/.exec(headers.get('signature') ?? '')?.[1];
  if (!signature) throw new Error('no signature');
  const requestLine = requestDigest ? `\n"content-digest";req: ${requestDigest}` : '';
  const base = `"@status": ${status}\n"content-digest": ${digest}${requestLine}\n"@signature-params": ${params}`;
  const key = createPublicKey({ key: jwk, format: 'jwk' });
  if (!verify(null, Buffer.from(base), key, Buffer.from(signature, 'base64'))) throw new Error('bad signature (or made for another request)');
  const answer = JSON.parse(body);
  // A genuine answer about another license (one a relaying proxy holds) must not pass for ours.
  if (license !== undefined && answer.success && answer.data && answer.data.key !== license) throw new Error('answer about another license');
  return answer;
}

/**
 * The offline token's claims, once its signature, issuer, lifetime, nonce, license (`sub`) and,
 * when given, device (`hwid` or one of `hwids`: a license without an HWID lock names none) check out.
 */
export async function verifyOfflineToken(token, { jwk, appId, nonce, license, hwid }) {
  const { payload } = await jwtVerify(token, await importJWK(jwk, 'EdDSA'), { issuer: appId, algorithms: ['EdDSA'], subject: license });
  if (nonce !== undefined && payload.nonce !== nonce) throw new Error('offline token for another request');
  if (hwid !== undefined && payload.hwid !== hwid && !payload.hwids?.includes(hwid)) throw new Error('offline token for another device');
  return payload;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { BASE_URL, APP_ID, LICENSE, PUBLIC_JWK } = process.env;
  const jwk = JSON.parse(PUBLIC_JWK);
  const nonce = randomBytes(16).toString('base64url');
  const body = JSON.stringify({ app_id: APP_ID, license: LICENSE, nonce, offline_token: true });
  const requestDigest = contentDigest(body);
  const response = await fetch(`${BASE_URL}/auth`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-digest': requestDigest },
    body,
  });
  const answer = verifyAnswer({ status: response.status, headers: response.headers, body: await response.text() }, { jwk, nonce, requestDigest, license: LICENSE });
  const claims = answer.success ? await verifyOfflineToken(answer.data.offline_token, { jwk, appId: APP_ID, nonce, license: LICENSE }) : null;
  console.log(JSON.stringify({ verified: true, status: response.status, message: answer.message, claims }));
}
