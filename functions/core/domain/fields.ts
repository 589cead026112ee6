import * as z from 'zod/mini';
import { canonicalUuid, isUuid } from '../ids';
import { maxDevicesLimit } from '#data/model/license';
import { leaseSecondsLimits, refusedHwid } from '#data/model/lease';

/**
 * Body fields shared by management routes. Identifiers are checked for shape
 * only; whether they exist and belong to the caller is ownership's job.
 * An id sent in upper case is read as the stored, lower-case one.
 */
function uuidField() {
  return z.string().check(z.refine(isUuid, 'must be a UUID'), z.overwrite(canonicalUuid));
}

export const appIdField = uuidField();

export const subscriptionIdField = uuidField();

/** The name of a subscription or an application: trimmed, 1 to 100 characters. */
export const nameField = z.string().check(z.trim(), z.minLength(1), z.maxLength(100));

export const webhookIdField = uuidField();

export const apiKeyIdField = uuidField();

/**
 * Generated keys are 29 characters of Crockford base32 and dashes, custom keys 8
 * to 64 of A-Z, a-z, 0-9, _ and -: a string of other characters is no key, and
 * its length is bounded so it always fits a DynamoDB key attribute.
 */
export const licenseKeyField = z.string().check(z.regex(/^[A-Za-z0-9_-]{1,256}$/, 'must be a license key: 1 to 256 characters of A-Z, a-z, 0-9, _ and -'));

/** 1..1000 keys (docs/management-api.md, Licenses); a key sent twice is answered once. */
export const licenseKeysField = z.pipe(
  z.array(licenseKeyField).check(z.minLength(1), z.maxLength(1000)),
  z.transform((licenseKeys: string[]) => [...new Set(licenseKeys)]),
);

/** A device's HWID as management and portal routes take it. */
export const hwidField = z.lazy(() =>
  z.string().check(
    z.minLength(1),
    z.maxLength(256),
    z.refine((hwid) => hwid !== refusedHwid, `must not be "${refusedHwid}"`),
  ),
);

/** Seats of a license: 1 to 100 (docs/management-api.md, "Devices: seats and self-service reset"). */
export const maxDevicesField = z.int().check(z.minimum(1), z.maximum(maxDevicesLimit));

/** Ten years: longer is a typo, and a longer cooldown means "never" (use hwid_reset_allowed for that). */
export const MAX_RESET_INTERVAL_SECONDS = 10 * 365 * 86400;

/** Seconds between two self-service HWID resets of a license. */
export const hwidResetIntervalField = z.int().check(z.minimum(0), z.maximum(MAX_RESET_INTERVAL_SECONDS));

/** Floating seats (docs/licensing-models.md, "Floating seats"): null binds seats for good, else 60 s to 30 days per lease. */
export const leaseSecondsField = z.nullable(z.int().check(z.minimum(leaseSecondsLimits.min), z.maximum(leaseSecondsLimits.max)));

/** The longest address SMTP carries (a 256-octet path less its angle brackets). */
export const maxEmailLength = 254;

/**
 * A customer's email address: trimmed and lower-cased before it is checked, so
 * `Ann@Example.com ` and `ann@example.com` are one address wherever it is stored
 * or looked up.
 */
export const emailField = z.string().check(
  z.trim(),
  z.toLowerCase(),
  z.maxLength(maxEmailLength, `must be an email address of at most ${maxEmailLength} characters`),
  z.regex(z.regexes.email, 'must be an email address'),
);
