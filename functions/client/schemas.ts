import * as z from 'zod/mini';
import { badClientRequest, clientMessages } from '#core/http/errors';
import { borrowSecondsLimits, refusedHwid } from '#data/model/lease';
import { canonicalUuid, isUuid } from '#core/ids';
import { maxPasswordBytes } from '#core/domain/passwords';
import { isValidNonce, noncePattern } from '#core/signing/signatures';
import { decodeCode } from '#core/http/file-codes';
import { licenseFileSecondsLimits } from '#data/model/license-file';
import { entitlementName } from '#shared/entitlements';
import { isPlainObject } from '#shared/plain-object';

/**
 * Client bodies, checked one rule at a time in the order of the 400 rows of
 * docs/client-api.md (POST /auth, POST /register): the first failing rule's message is the 400 a client sees.
 * A body that is JSON but not an object is read as an empty one, so it is asked
 * for the App ID first.
 */
const clientBody = z.lazy(() =>
  z.pipe(
    z.transform((body: unknown) => (isPlainObject(body) ? body : {})),
    z.record(z.string(), z.unknown()),
  ),
);

/** SDKs send `""` or `null` for a field they do not have: both count as missing. */
const absent = (value: unknown) => value === undefined || value === null || value === '';
const present = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

/**
 * A username as it is stored and compared: without surrounding white space and
 * in Unicode NFC, so that "ana" and " ana", or a name typed with a combining
 * accent and with a precomposed one, are one username. A value that is not a
 * string is left to the rules.
 */
const normalizedUsername = (value: unknown): unknown => (typeof value === 'string' ? value.trim().normalize('NFC') : value);

/** A rule fails when its test is true; later rules may rely on the earlier ones having passed. */
type Rule = [fails: () => boolean, message: string];

const firstFailure = (rules: Rule[]) => rules.find(([fails]) => fails())?.[1];

const appIdRules = (appId: unknown): Rule[] => [
  [() => absent(appId), clientMessages.appIdRequired],
  [() => typeof appId !== 'string' || !isUuid(appId), clientMessages.appIdFormat],
];

/** An HWID is what the blacklist stores as one: 1 to 256 characters (core/http/network.ts). */
const maxHwidLength = 256;

export type AuthCredential = { license: string } | { username: string; password: string };

export interface AuthInput {
  appId: string;
  credential: AuthCredential;
  hwid: string | undefined;
  /** docs/client-api.md, "Signed answers and offline tokens": only `true` asks for one; anything else gets the base answer. */
  offlineToken: boolean;
}

export const authSchema = z.lazy(() =>
  z.pipe(
    clientBody,
    z.transform((body: Record<string, unknown>, ctx): AuthInput => {
      const { app_id: appId, license, password, hwid } = body;
      const username = normalizedUsername(body.username);
      // A license key wins when a client sends both methods.
      const credential: AuthCredential | undefined = present(license)
        ? { license }
        : present(username) && present(password)
          ? { username, password }
          : undefined;
      const failure = firstFailure([
        ...appIdRules(appId),
        [() => credential === undefined, clientMessages.noAuthMethod],
        [() => !absent(hwid) && (typeof hwid !== 'string' || hwid.length > maxHwidLength), clientMessages.hwidFormat],
        [() => hwid === refusedHwid, clientMessages.hwidProto],
      ]);
      if (failure) {
        ctx.issues.push({ code: 'custom', message: failure, input: body });
        return z.NEVER;
      }
      return { appId: canonicalUuid(appId as string), credential: credential!, hwid: present(hwid) ? hwid : undefined, offlineToken: body.offline_token === true };
    }),
  ),
);

export interface RegisterInput {
  appId: string;
  license: string;
  username: string;
  password: string;
}

const characters = (value: string) => [...value].length;

export const registerSchema = z.lazy(() =>
  z.pipe(
    clientBody,
    z.transform((body: Record<string, unknown>, ctx): RegisterInput => {
      const { app_id: appId, license, password } = body;
      const username = normalizedUsername(body.username);
      const failure = firstFailure([
        ...appIdRules(appId),
        [() => !present(license), clientMessages.licenseRequired],
        [() => !present(username), clientMessages.usernameRequired],
        [() => !present(password), clientMessages.passwordRequired],
        [() => characters(username as string) < 3 || characters(username as string) > 50, clientMessages.usernameLength],
        [() => characters(password as string) < 8, clientMessages.passwordMinLength],
        [() => Buffer.byteLength(password as string, 'utf8') > maxPasswordBytes, clientMessages.passwordMaxBytes],
      ]);
      if (failure) {
        ctx.issues.push({ code: 'custom', message: failure, input: body });
        return z.NEVER;
      }
      return { appId: canonicalUuid(appId as string), license: license as string, username: username as string, password: password as string };
    }),
  ),
);

export interface ResetHwidInput {
  appId: string;
  credential: AuthCredential;
  /** The device to release; without it, every device. */
  hwid: string | undefined;
}

/** `/reset-hwid` takes `/auth`'s body and answers its 400 messages (docs/client-api.md, "POST /reset-hwid"). */
export const resetHwidSchema: z.ZodMiniType<ResetHwidInput, unknown> = authSchema;

/**
 * `borrow_seconds` of /auth (docs/client-api.md, "Borrowing a floating seat"), checked right after
 * the nonce: absent (or null or "", as SDKs send a field they lack) is no
 * borrow; anything but an integer from 60 s to 365 days is 400 `Invalid
 * borrow_seconds`. The application's own `max_borrow_seconds` is checked once
 * the application is read (`checkBorrowAllowed`).
 */
export function borrowSecondsOf(body: unknown): number | undefined {
  const value = isPlainObject(body) ? body.borrow_seconds : undefined;
  if (absent(value)) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < borrowSecondsLimits.min || value > borrowSecondsLimits.max) {
    throw badClientRequest(clientMessages.invalidBorrowSeconds);
  }
  return value;
}

/** The application's limit on a borrow: 400 `Invalid borrow_seconds` above it. */
export function checkBorrowAllowed(borrowSeconds: number | undefined, maxBorrowSeconds: number | undefined): void {
  if (borrowSeconds !== undefined && borrowSeconds > (maxBorrowSeconds ?? borrowSecondsLimits.defaultMax)) {
    throw badClientRequest(clientMessages.invalidBorrowSeconds);
  }
}

export interface ReleaseInput {
  appId: string;
  credential: AuthCredential;
  /** The device whose seat is released; without it the answer is 403 `HWID_NOT_PROVIDED`. */
  hwid: string | undefined;
}

/** `/release` takes `/auth`'s body and answers its 400 messages (docs/client-api.md, "POST /release"). */
export const releaseSchema: z.ZodMiniType<ReleaseInput, unknown> = authSchema;

/** docs/client-api.md, POST /usage: at most this much in one call. */
export const maxUsageAmount = 1_000_000;

export interface UsageRequest {
  counter: string;
  amount: number;
  usageId: string | undefined;
}

/** What /usage adds to /auth's body; `amount` and `usage_id` may be absent or null. */
const usageFields = z.lazy(() =>
  z.object({
    counter: entitlementName,
    amount: z.optional(z.nullable(z.int().check(z.minimum(1), z.maximum(maxUsageAmount)))),
    usage_id: z.optional(z.nullable(z.string().check(z.regex(noncePattern)))),
  }),
);

/**
 * The fields /usage adds to /auth's body, checked after the nonce: one 400,
 * `Invalid usage request`, for any of them malformed. `amount` defaults to 1.
 */
export function usageRequest(body: unknown): UsageRequest {
  const parsed = usageFields.safeParse(isPlainObject(body) ? body : {});
  if (!parsed.success) throw badClientRequest(clientMessages.invalidUsage);
  return { counter: parsed.data.counter, amount: parsed.data.amount ?? 1, usageId: parsed.data.usage_id ?? undefined };
}

/** What /license-file adds to /auth's body (docs/client-api.md, "POST /license-file"). */
export interface LicenseFileFields {
  /** Absent: the application's longest (on a floating license, no longer than its longest borrow). */
  lifetimeSeconds: number | undefined;
  encrypt: boolean;
}

/**
 * `hwid`, `lifetime_seconds` and `encrypt` of /license-file, checked right after the nonce:
 * one 400, `Invalid license file request`, for a missing HWID or either field malformed.
 * The application's own `max_license_file_seconds` is checked once it is read.
 */
export function licenseFileFields(body: unknown): LicenseFileFields {
  const fields = fileFieldsOf(isPlainObject(body) ? body : {});
  if (fields === undefined) throw badClientRequest(clientMessages.invalidLicenseFileRequest);
  return fields;
}

function fileFieldsOf(fields: Record<string, unknown>): LicenseFileFields | undefined {
  const { lifetime_seconds: lifetime, encrypt } = fields;
  const lifetimeOk = absent(lifetime) || (typeof lifetime === 'number' && Number.isInteger(lifetime) && lifetime >= licenseFileSecondsLimits.min && lifetime <= licenseFileSecondsLimits.max);
  if (!present(fields.hwid) || !lifetimeOk || !(encrypt === undefined || encrypt === null || typeof encrypt === 'boolean')) return undefined;
  return { lifetimeSeconds: absent(lifetime) ? undefined : (lifetime as number), encrypt: encrypt === true };
}

/** An HWID that a code or a trial may name: one /auth would take, and not `__proto__`. */
const namedHwid = (hwid: unknown): hwid is string => present(hwid) && hwid.length <= maxHwidLength && hwid !== refusedHwid;

/** A code's `app_id` when it is one, and the body's, when sent, the same application. */
function codeApp(code: Record<string, unknown>, body: Record<string, unknown>): string | undefined {
  if (typeof code.app_id !== 'string' || !isUuid(code.app_id)) return undefined;
  const appId = canonicalUuid(code.app_id);
  if (absent(body.app_id)) return appId;
  return typeof body.app_id === 'string' && isUuid(body.app_id) && canonicalUuid(body.app_id) === appId ? appId : undefined;
}

/**
 * The body /license-file works with: the one sent, or, for `{"request": "lfr1.…"}`, the activation
 * request's fields as if sent, its nonce the answer's unless the body sends one. A request that does
 * not decode, or whose fields /license-file would refuse: 400 `Invalid activation request`.
 */
export function licenseFileBody(body: unknown): { body: unknown; activation?: { nonce: string } } {
  if (!isPlainObject(body) || absent(body.request)) return { body };
  const code = decodeCode(body.request, 'activation');
  const appId = code && codeApp(code, body);
  const valid =
    code !== undefined &&
    appId !== undefined &&
    present(code.license) &&
    namedHwid(code.hwid) &&
    isValidNonce(code.nonce) &&
    fileFieldsOf(code) !== undefined;
  if (!valid) throw badClientRequest(clientMessages.invalidActivationRequest);
  const { license, hwid, nonce, lifetime_seconds, encrypt } = code;
  return { body: { app_id: appId, license, hwid, nonce: body.nonce ?? nonce, lifetime_seconds, encrypt }, activation: { nonce: nonce as string } };
}

export interface ReturnCode {
  appId: string;
  license: string;
  hwid: string;
  jti: string;
}

/** `/license-file/return`'s body: `{request}` holding a return code (`lfx1.`), and `app_id` only when it is the code's. Else 400 `Invalid return code`. */
export function returnCodeOf(body: unknown): ReturnCode {
  const fields = isPlainObject(body) ? body : {};
  const code = decodeCode(fields.request, 'return');
  const appId = code && codeApp(code, fields);
  if (code === undefined || appId === undefined || !present(code.license) || !namedHwid(code.hwid) || !present(code.jti) || code.jti.length > 128) {
    throw badClientRequest(clientMessages.invalidReturnCode);
  }
  return { appId, license: code.license, hwid: code.hwid, jti: code.jti };
}

export interface TrialInput {
  appId: string;
  hwid: string;
}

/**
 * `/trial`'s body (docs/client-api.md#post-trial): the App ID's 400s, then
 * `Invalid hwid` for an HWID that is missing, empty, no string, longer than an
 * HWID may be, or `__proto__`.
 */
export const trialSchema = z.lazy(() =>
  z.pipe(
    clientBody,
    z.transform((body: Record<string, unknown>, ctx): TrialInput => {
      const { app_id: appId, hwid } = body;
      const failure = firstFailure([
        ...appIdRules(appId),
        [() => !namedHwid(hwid), clientMessages.invalidHwid],
      ]);
      if (failure) {
        ctx.issues.push({ code: 'custom', message: failure, input: body });
        return z.NEVER;
      }
      return { appId: canonicalUuid(appId as string), hwid: hwid as string };
    }),
  ),
);
