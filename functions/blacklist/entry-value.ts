import { invalidInput } from '#core/http/errors';
import { normalizeBlacklistValue } from '#core/http/network';
import type { BlacklistType } from '#data/model/blacklist';

const formats: Record<BlacklistType, string> = {
  country: 'an ISO 3166-1 alpha-2 country code',
  asn: 'an ASN such as AS13335 or 13335',
  ip: 'an IPv4 or IPv6 address',
  hwid: 'an HWID of 1 to 256 characters',
};

/** The stored spelling of a value; /auth looks entries up by the same normal form. */
export function normalizedValue(type: BlacklistType, raw: string): string {
  const value = normalizeBlacklistValue(type, raw);
  if (value === undefined) throw invalidInput(`value: must be ${formats[type]}`);
  return value;
}
