import { normalizeAsn, normalizeBlacklistValue, normalizeCountry, normalizeIp } from '#core/http/network';

describe('blacklist value normalisation', () => {
  it('gives one spelling to every form of an IPv6 address', () => {
    expect(normalizeIp('2001:0DB8:0000:0000:0000:0000:0000:0001')).toBe('2001:db8::1');
    expect(normalizeIp('2001:db8::1')).toBe('2001:db8::1');
    expect(normalizeIp('fe80::1%eth0')).toBe('fe80::1');
  });

  it('reduces IPv4-mapped IPv6 to the IPv4 address', () => {
    expect(normalizeIp('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(normalizeIp('::FFFF:c000:0207')).toBe('192.0.2.7');
  });

  it('keeps plain IPv4 and rejects what is not an address', () => {
    expect(normalizeIp('192.0.2.7')).toBe('192.0.2.7');
    expect(normalizeIp('192.0.2.256')).toBeUndefined();
    expect(normalizeIp('example.com')).toBeUndefined();
  });

  it('reads ASNs with or without the AS prefix', () => {
    expect(normalizeAsn('AS13335')).toBe('13335');
    expect(normalizeAsn('as13335')).toBe('13335');
    expect(normalizeAsn('13335')).toBe('13335');
    expect(normalizeAsn('AS')).toBeUndefined();
    expect(normalizeAsn('99999999999')).toBeUndefined();
  });

  it('upper-cases two-letter country codes', () => {
    expect(normalizeCountry('de')).toBe('DE');
    expect(normalizeCountry('DEU')).toBeUndefined();
  });

  it('dispatches by type', () => {
    expect(normalizeBlacklistValue('asn', 'AS1')).toBe('1');
    expect(normalizeBlacklistValue('hwid', 'Device-A')).toBe('Device-A');
    expect(normalizeBlacklistValue('hwid', '')).toBeUndefined();
  });
});
