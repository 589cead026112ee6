import { isIP, isIPv6 } from 'node:net';
import type { BlacklistType } from '#data/model/blacklist';
import { sha256Hex } from '../ids';

/**
 * Canonical IP text: IPv6 compressed and lower-cased, IPv4-mapped IPv6
 * (`::ffff:1.2.3.4`) reduced to its IPv4 address, zone IDs dropped. Both the
 * blacklist store and the /auth check go through this, so one address has one
 * spelling. Returns undefined for text that is not an IP address.
 */
export function normalizeIp(raw: string): string | undefined {
  const value = raw.trim().replace(/%.*$/, '');
  const version = isIP(value);
  if (version === 4) return value.split('.').map((part) => String(Number(part))).join('.');
  if (version !== 6) return undefined;
  const canonical = new URL(`http://[${value}]`).hostname.slice(1, -1);
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
  if (mapped) {
    const high = parseInt(mapped[1]!, 16);
    const low = parseInt(mapped[2]!, 16);
    return [high >> 8, high & 255, low >> 8, low & 255].join('.');
  }
  return canonical;
}

/**
 * The source a per-address limit counts (trial starts, portal sign-ins): an IPv6 address by its
 * first 64 bits, which one subscriber usually holds whole; an address the gateway did not give, as one.
 */
export function addressBlock(sourceIp: string): string {
  const ip = normalizeIp(sourceIp) ?? '';
  if (!isIPv6(ip)) return ip;
  const [head = '', tail] = ip.split('::');
  const front = head === '' ? [] : head.split(':');
  const back = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = tail === undefined ? front : [...front, ...Array<string>(8 - front.length - back.length).fill('0'), ...back];
  return `${groups.slice(0, 4).join(':')}::/64`;
}

/** An application's key for a source's per-address counts: its address block hashed with the application. */
export function addressHash(appId: string, sourceIp: string): string {
  return sha256Hex(`${appId}\n${addressBlock(sourceIp)}`).slice(0, 32);
}

/** `AS13335`, `as13335` and `13335` are one ASN. */
export function normalizeAsn(raw: string): string | undefined {
  const match = /^(?:AS)?(\d{1,10})$/i.exec(raw.trim());
  if (!match) return undefined;
  const asn = Number(match[1]);
  return asn <= 4294967295 ? String(asn) : undefined;
}

/** ISO 3166-1 alpha-2, any case. */
export function normalizeCountry(raw: string): string | undefined {
  const value = raw.trim().toUpperCase();
  return /^[A-Z]{2}$/.test(value) ? value : undefined;
}

/** The one normal form of each blacklist type; undefined when the value is not of that type. */
export function normalizeBlacklistValue(type: BlacklistType, raw: string): string | undefined {
  switch (type) {
    case 'country':
      return normalizeCountry(raw);
    case 'asn':
      return normalizeAsn(raw);
    case 'ip':
      return normalizeIp(raw);
    case 'hwid':
      return raw.length > 0 && raw.length <= 256 ? raw : undefined;
  }
}
