import { ConfigError, readConfig, readLocalConfig } from '#core/config';
import { constantTimeEqual, isUuid, namedLicenseKey, newApiKey, newLicenseKey, sha256Hex } from '#core/ids';

describe('identifiers', () => {
  it('makes API keys of the documented form', () => {
    expect(newApiKey()).toMatch(/^lsk_[A-Za-z0-9]{43}$/);
    expect(newApiKey()).not.toBe(newApiKey());
  });

  it('makes license keys of 25 base32 characters (125 bits) in five groups', () => {
    const key = newLicenseKey();
    expect(key).toMatch(/^[0-9A-HJKMNP-TV-Z]{5}(-[0-9A-HJKMNP-TV-Z]{5}){4}$/);
    expect(new Set(Array.from({ length: 1000 }, newLicenseKey)).size).toBe(1000);
  });

  it('names license keys of the same form from a secret and a name: the same pair the same key, another secret or name another, every character in use', () => {
    const names = Array.from({ length: 1000 }, (_, i) => `device-${i}`);
    const keys = names.map((name) => namedLicenseKey('secret-one', name));
    for (const key of keys) expect(key).toMatch(/^[0-9A-HJKMNP-TV-Z]{5}(-[0-9A-HJKMNP-TV-Z]{5}){4}$/);
    expect(names.map((name) => namedLicenseKey('secret-one', name))).toEqual(keys);
    expect(new Set([...keys, ...names.map((name) => namedLicenseKey('secret-two', name))]).size).toBe(2000);
    // 25,000 characters: each of the 32 is expected 781 times; one missing or folded onto another would show.
    const counts = new Map<string, number>();
    for (const character of keys.join('').replaceAll('-', '')) counts.set(character, (counts.get(character) ?? 0) + 1);
    expect(counts.size).toBe(32);
    expect(Math.min(...counts.values())).toBeGreaterThan(600);
  });

  it('hashes with SHA-256 and compares equal strings only', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(constantTimeEqual('same', 'same')).toBe(true);
    expect(constantTimeEqual('same', 'samf')).toBe(false);
    expect(constantTimeEqual('same', 'longer')).toBe(false);
  });

  it('recognises UUIDs', () => {
    expect(isUuid('746fe0ab-7a70-4c33-8cef-8716b28d8bcf')).toBe(true);
    expect(isUuid('746fe0ab7a704c338cef8716b28d8bcf')).toBe(false);
  });
});

describe('configuration', () => {
  it('has working defaults', () => {
    const config = readConfig({});
    expect(config).toMatchObject({ tableName: 'licensing', debug: false, bcryptCost: 10, cacheTtlSeconds: 5, logLevel: 'info', trustedViewerHeaders: [], tracing: false });
    expect(readLocalConfig({})).toMatchObject({ port: 3000, dynamodbPort: 8000, dataDir: '.data', clientRateLimit: { ratePerSecond: 50, burst: 100 } });
  });

  it('reads every setting from the environment', () => {
    const config = readConfig({ TABLE_NAME: 't', DEBUG: 'true', BCRYPT_COST: '12', CACHE_TTL_SECONDS: '0', LOG_LEVEL: 'WARN', TRACING: 'true' });
    expect(config).toMatchObject({ tableName: 't', debug: true, bcryptCost: 12, cacheTtlSeconds: 0, logLevel: 'warn', tracing: true });
    expect(readLocalConfig({ RATE_LIMIT: 'off' }).rateLimit.enabled).toBe(false);
    expect(readLocalConfig({ CLIENT_RATE_LIMIT_RPS: '5', CLIENT_RATE_LIMIT_BURST: '7' }).clientRateLimit).toEqual({ ratePerSecond: 5, burst: 7 });
    expect(readConfig({ TRUSTED_VIEWER_HEADERS: 'ASN, country' }).trustedViewerHeaders).toEqual(['country', 'asn']);
    expect(readConfig({ TRUSTED_VIEWER_HEADERS: '' }).trustedViewerHeaders).toEqual([]);
  });

  it('refuses settings it cannot honour instead of guessing', () => {
    expect(() => readConfig({ BCRYPT_COST: '3' })).toThrow(ConfigError);
    expect(() => readConfig({ DEBUG: 'maybe' })).toThrow(ConfigError);
    expect(() => readConfig({ LOG_LEVEL: 'loud' })).toThrow(ConfigError);
    expect(() => readConfig({ TRACING: 'sometimes' })).toThrow(ConfigError);
    expect(() => readConfig({ TRUSTED_VIEWER_HEADERS: 'country,city' })).toThrow(/TRUSTED_VIEWER_HEADERS/);
    expect(() => readLocalConfig({ PORT: 'http' })).toThrow(ConfigError);
  });
});
