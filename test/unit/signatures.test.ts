import { createHash, createPrivateKey, createPublicKey, randomBytes, sign, verify } from 'node:crypto';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serializeDictionary } from 'structured-headers';
import { loadMasterKey, localKeyVault } from '#core/key-vault';
import {
  acceptSignatureNonce,
  answerSignatureHeaders,
  type Component,
  contentDigest,
  requestContentDigest,
  requestDigestComponent,
  requestNonce,
  signatureBase,
  signatureParams,
} from '#core/signing/signatures';

// RFC 9421 Appendix B.1.4, test-key-ed25519.
const rfcPrivateKey = createPrivateKey('-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIJ+DYvh6SEqVTm50DFtMDoQikTmiCqirVv9mWG9qfSnF\n-----END PRIVATE KEY-----\n');
const rfcPublicKey = createPublicKey('-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAJrQLj5P/89iXES9+vFgrIy29clF9CC/oPPsw3c5D0bs=\n-----END PUBLIC KEY-----\n');

describe('RFC 9421 signatures', () => {
  it('reproduce Appendix B.2.6 (ed25519) byte for byte: signature base, Signature-Input and Signature', () => {
    const names = ['date', '@method', '@path', '@authority', 'content-type', 'content-length'];
    const params = signatureParams(names, { created: 1618884473, keyid: 'test-key-ed25519' });
    const base = signatureBase(
      [
        ['date', 'Tue, 20 Apr 2021 02:07:55 GMT'],
        ['@method', 'POST'],
        ['@path', '/foo'],
        ['@authority', 'example.com'],
        ['content-type', 'application/json'],
        ['content-length', '18'],
      ],
      params,
    );
    expect(base).toBe(
      [
        '"date": Tue, 20 Apr 2021 02:07:55 GMT',
        '"@method": POST',
        '"@path": /foo',
        '"@authority": example.com',
        '"content-type": application/json',
        '"content-length": 18',
        '"@signature-params": ("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"',
      ].join('\n'),
    );
    const signature = sign(null, Buffer.from(base), rfcPrivateKey);
    expect(signature.toString('base64')).toBe('wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw==');
    expect(verify(null, Buffer.from(base), rfcPublicKey, signature)).toBe(true);
    expect(serializeDictionary(new Map([['sig-b26', params]]))).toBe(
      'sig-b26=("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"',
    );
    expect(serializeDictionary({ 'sig-b26': signature })).toBe('sig-b26=:wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw==:');
  });

  it('sign an answer over @status and its content digest, with created, keyid, alg and the nonce', () => {
    const body = '{"success":true}';
    const headers = answerSignatureHeaders({ status: 200, body, keyId: 'kid-1', privateKey: rfcPrivateKey, created: 1763856000, nonce: 'abcdefgh', requestDigest: undefined });
    expect(headers['Content-Digest']).toBe(contentDigest(body));
    expect(headers['Content-Digest']).toMatch(/^sha-256=:[A-Za-z0-9+/]{43}=:$/);
    const params = '("@status" "content-digest");created=1763856000;keyid="kid-1";alg="ed25519";nonce="abcdefgh"';
    expect(headers['Signature-Input']).toBe(`sig1=${params}`);
    const base = `"@status": 200\n"content-digest": ${headers['Content-Digest']}\n"@signature-params": ${params}`;
    const signature = Buffer.from(/^sig1=:(.*):$/.exec(headers.Signature!)![1]!, 'base64');
    expect(verify(null, Buffer.from(base), rfcPublicKey, signature)).toBe(true);
    const withoutNonce = answerSignatureHeaders({ status: 200, body, keyId: 'kid-1', privateKey: rfcPrivateKey, created: 1, nonce: undefined, requestDigest: undefined });
    expect(withoutNonce['Signature-Input']).toBe('sig1=("@status" "content-digest");created=1;keyid="kid-1";alg="ed25519"');
  });

  it('reproduce the response of RFC 9421 section 2.4 that covers the request with ;req: base, parameters, and its P-256 signature', () => {
    // RFC 9421 Appendix B.1.3, test-key-ecc-p256: ECDSA signatures are not deterministic, so the RFC's own signature is verified.
    const p256PublicKey = createPublicKey(
      '-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEqIVYZVLCrPZHGHjP17CTW0/+D9Lf\nw0EkjqF7xB4FivAxzic30tMM4GF+hR6Dxh71Z50VGGdldkkDXZCnTNnoXQ==\n-----END PUBLIC KEY-----\n',
    );
    const requestBody = '{"hello": "world"}';
    const requestDigest = 'sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:';
    expect(requestContentDigest(requestDigest, Buffer.from(requestBody))).toEqual({ kind: 'valid', value: requestDigest });
    const responseBody = '{"busy": true, "message": "Your call is very important to us"}';
    const responseDigest = serializeDictionary({ 'sha-512': createHash('sha512').update(responseBody).digest() });
    expect(responseDigest).toBe('sha-512=:0Y6iCBzGg5rZtoXS95Ijz03mslf6KAMCloESHObfwnHJDbkkWWQz6PhhU9kxsTbARtY2PTBOzq24uJFpHsMuAg==:');

    const req = (name: string): [string, Map<string, boolean>] => [name, new Map([['req', true]])];
    const components: Component[] = [
      ['@status', '503'],
      ['content-digest', responseDigest],
      ['content-type', 'application/json'],
      [req('@authority'), 'example.com'],
      [req('@method'), 'POST'],
      [req('@path'), '/foo'],
      [requestDigestComponent, requestDigest],
    ];
    const params = signatureParams(components.map(([id]) => id), { created: 1618884479, keyid: 'test-key-ecc-p256' });
    const base = signatureBase(components, params);
    expect(base).toBe(
      [
        '"@status": 503',
        '"content-digest": sha-512=:0Y6iCBzGg5rZtoXS95Ijz03mslf6KAMCloESHObfwnHJDbkkWWQz6PhhU9kxsTbARtY2PTBOzq24uJFpHsMuAg==:',
        '"content-type": application/json',
        '"@authority";req: example.com',
        '"@method";req: POST',
        '"@path";req: /foo',
        '"content-digest";req: sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:',
        '"@signature-params": ("@status" "content-digest" "content-type" "@authority";req "@method";req "@path";req "content-digest";req);created=1618884479;keyid="test-key-ecc-p256"',
      ].join('\n'),
    );
    expect(serializeDictionary(new Map([['reqres', params]]))).toBe(
      'reqres=("@status" "content-digest" "content-type" "@authority";req "@method";req "@path";req "content-digest";req);created=1618884479;keyid="test-key-ecc-p256"',
    );
    const signature = Buffer.from('dMT/A/76ehrdBTD/2Xx8QuKV6FoyzEP/I9hdzKN8LQJLNgzU4W767HK05rx1i8meNQQgQPgQp8wq2ive3tV5Ag==', 'base64');
    expect(verify('sha256', Buffer.from(base), { key: p256PublicKey, dsaEncoding: 'ieee-p1363' }, signature)).toBe(true);
    expect(verify('sha256', Buffer.from(base.replace('sha-512=:WZDP', 'sha-512=:WZDQ')), { key: p256PublicKey, dsaEncoding: 'ieee-p1363' }, signature)).toBe(false);
  });

  it('sign an answer over the request’s Content-Digest too when it has one: a fixed Ed25519 vector, byte for byte', () => {
    const requestBody = '{"app_id":"3f0c7f2e-4b1a-4c55-9d7e-0b7f1c2d3e4f","license":"7K2QX-M4TZP-9W3RD-HV8NB-C6YJE","nonce":"n0nce-0001"}';
    const requestDigest = contentDigest(requestBody);
    expect(requestDigest).toBe('sha-256=:DhJMSqNiEkO7ep1IJIZ3tkFc8dOj6O+ub2tjum+e8+k=:');
    const body = '{"success":true,"message":"LICENSE_VERIFIED_USED_AND_LOCKED_KEY"}';
    const headers = answerSignatureHeaders({ status: 200, body, keyId: 'test-key-ed25519', privateKey: rfcPrivateKey, created: 1763856000, nonce: 'n0nce-0001', requestDigest });
    expect(headers).toEqual({
      'Content-Digest': 'sha-256=:vHLAVzDNfXDFU6HlyWIxLPbAQVoO7d6/Ii7e1/cIqvE=:',
      'Signature-Input': 'sig1=("@status" "content-digest" "content-digest";req);created=1763856000;keyid="test-key-ed25519";alg="ed25519";nonce="n0nce-0001"',
      Signature: 'sig1=:FF0P7ylI1qrjVdaDn0CU0gwtZ3/gzTBHeVUTT3c69romklOGgRV5rlBeWGIhSURh374cA3Jd4qSgICYcadJ5DQ==:',
    });
    const base = [
      '"@status": 200',
      '"content-digest": sha-256=:vHLAVzDNfXDFU6HlyWIxLPbAQVoO7d6/Ii7e1/cIqvE=:',
      '"content-digest";req: sha-256=:DhJMSqNiEkO7ep1IJIZ3tkFc8dOj6O+ub2tjum+e8+k=:',
      '"@signature-params": ("@status" "content-digest" "content-digest";req);created=1763856000;keyid="test-key-ed25519";alg="ed25519";nonce="n0nce-0001"',
    ].join('\n');
    const signature = Buffer.from('FF0P7ylI1qrjVdaDn0CU0gwtZ3/gzTBHeVUTT3c69romklOGgRV5rlBeWGIhSURh374cA3Jd4qSgICYcadJ5DQ==', 'base64');
    expect(verify(null, Buffer.from(base), rfcPublicKey, signature)).toBe(true);
    const otherRequest = contentDigest(requestBody.replace('7K2QX', '7K2QY'));
    expect(verify(null, Buffer.from(base.replace(requestDigest, otherRequest)), rfcPublicKey, signature)).toBe(false);
  });

  it('digest the body bytes as RFC 9530 says', () => {
    expect(contentDigest('')).toBe('sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:');
  });
});

describe('request Content-Digest', () => {
  const body = Buffer.from('{"app_id":"x","license":"K"}');
  const sha256 = `sha-256=:${createHash('sha256').update(body).digest('base64')}:`;
  const sha512 = `sha-512=:${createHash('sha512').update(body).digest('base64')}:`;
  const wrong256 = `sha-256=:${createHash('sha256').update('other').digest('base64')}:`;

  it('is absent without the header, and valid when every sha-256 and sha-512 member matches the body bytes', () => {
    expect(requestContentDigest(undefined, body)).toEqual({ kind: 'none' });
    expect(requestContentDigest(sha256, body)).toEqual({ kind: 'valid', value: sha256 });
    expect(requestContentDigest(sha512, body)).toEqual({ kind: 'valid', value: sha512 });
    expect(requestContentDigest(`${sha512}, ${sha256}`, body)).toEqual({ kind: 'valid', value: `${sha512}, ${sha256}` });
    expect(requestContentDigest(`md5=:AAAA:, ${sha256}`, body)).toEqual({ kind: 'valid', value: `md5=:AAAA:, ${sha256}` });
  });

  it('is invalid when a digest differs, no known algorithm is named, or the field is malformed', () => {
    const invalid = [
      wrong256,
      `${sha512}, ${wrong256}`,
      `sha-256=:${createHash('sha256').update(body).digest().subarray(0, 16).toString('base64')}:`,
      'md5=:AAAA:',
      'unixsum=:AAAA:',
      'constructor=:AAAA:',
      '__proto__=:AAAA:',
      '',
      'sha-256=abc',
      'sha-256=("a")',
      'sha-256=:not base64:',
      sha256.replace('sha-256=', 'sha-256 ='),
      'sha-256',
    ];
    for (const header of invalid) expect([header, requestContentDigest(header, body)]).toEqual([header, { kind: 'invalid' }]);
  });
});

describe('request nonces', () => {
  it('come from the body or the Accept-Signature header, which must agree', () => {
    expect(requestNonce(undefined, undefined)).toEqual({ kind: 'none' });
    expect(requestNonce(null, '')).toEqual({ kind: 'none' });
    expect(requestNonce('abc.DEF_~+/=-12', undefined)).toEqual({ kind: 'valid', nonce: 'abc.DEF_~+/=-12' });
    expect(requestNonce(undefined, 'sig1=("@status");nonce="12345678"')).toEqual({ kind: 'valid', nonce: '12345678' });
    expect(requestNonce('12345678', 'sig1=();nonce="12345678"')).toEqual({ kind: 'valid', nonce: '12345678' });
    expect(requestNonce('12345678', 'sig1=();nonce="87654321"')).toEqual({ kind: 'invalid' });
    expect(requestNonce('1234567', undefined)).toEqual({ kind: 'invalid' });
    expect(requestNonce('x'.repeat(129), undefined)).toEqual({ kind: 'invalid' });
    expect(requestNonce('x'.repeat(128), undefined)).toEqual({ kind: 'valid', nonce: 'x'.repeat(128) });
    expect(requestNonce('1234 5678', undefined)).toEqual({ kind: 'invalid' });
    expect(requestNonce(12345678, undefined)).toEqual({ kind: 'invalid' });
    expect(requestNonce('', undefined)).toEqual({ kind: 'invalid' });
  });

  it('read Accept-Signature as a structured dictionary, not by pattern', () => {
    expect(acceptSignatureNonce('sig1=("@status");created;nonce="abcdefgh"')).toBe('abcdefgh');
    expect(acceptSignatureNonce('a=();keyid="k", b=();nonce="second-one"')).toBe('second-one');
    expect(acceptSignatureNonce('sig1=("@status")')).toBeUndefined();
    expect(acceptSignatureNonce('sig1=(;;')).toBe('invalid');
    expect(acceptSignatureNonce('sig1=();nonce=?1')).toBe('invalid');
  });
});

describe('the local key vault', () => {
  it('encrypts with AES-256-GCM bound to the application id', async () => {
    const vault = localKeyVault(randomBytes(32));
    const secret = randomBytes(48);
    const sealed = await vault.encrypt('app-1', secret);
    expect(Buffer.from(sealed, 'base64').includes(secret)).toBe(false);
    expect(Buffer.from(await vault.decrypt('app-1', sealed))).toEqual(secret);
    await expect(vault.decrypt('app-2', sealed)).rejects.toThrow();
    await expect(localKeyVault(randomBytes(32)).decrypt('app-1', sealed)).rejects.toThrow();
  });

  it('keeps its 32-byte master key in DATA_DIR with mode 0600, the same on every start', () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'master-key-')), 'data');
    const first = loadMasterKey(dataDir);
    expect(first).toHaveLength(32);
    expect(statSync(join(dataDir, 'master.key')).mode & 0o777).toBe(0o600);
    expect(Buffer.from(loadMasterKey(dataDir))).toEqual(Buffer.from(first));
  });
});
