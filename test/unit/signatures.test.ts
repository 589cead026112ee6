import { createPrivateKey, createPublicKey, randomBytes, sign, verify } from 'node:crypto';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serializeDictionary } from 'structured-headers';
import { loadMasterKey, localKeyVault } from '#core/key-vault';
import { acceptSignatureNonce, answerSignatureHeaders, contentDigest, requestNonce, signatureBase, signatureParams } from '#core/signatures';

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
    const headers = answerSignatureHeaders({ status: 200, body, keyId: 'kid-1', privateKey: rfcPrivateKey, created: 1763856000, nonce: 'abcdefgh' });
    expect(headers['Content-Digest']).toBe(contentDigest(body));
    expect(headers['Content-Digest']).toMatch(/^sha-256=:[A-Za-z0-9+/]{43}=:$/);
    const params = '("@status" "content-digest");created=1763856000;keyid="kid-1";alg="ed25519";nonce="abcdefgh"';
    expect(headers['Signature-Input']).toBe(`sig1=${params}`);
    const base = `"@status": 200\n"content-digest": ${headers['Content-Digest']}\n"@signature-params": ${params}`;
    const signature = Buffer.from(/^sig1=:(.*):$/.exec(headers.Signature!)![1]!, 'base64');
    expect(verify(null, Buffer.from(base), rfcPublicKey, signature)).toBe(true);
    const withoutNonce = answerSignatureHeaders({ status: 200, body, keyId: 'kid-1', privateKey: rfcPrivateKey, created: 1, nonce: undefined });
    expect(withoutNonce['Signature-Input']).toBe('sig1=("@status" "content-digest");created=1;keyid="kid-1";alg="ed25519"');
  });

  it('digest the body bytes as RFC 9530 says', () => {
    expect(contentDigest('')).toBe('sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:');
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
