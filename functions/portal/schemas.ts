import * as z from 'zod/mini';
import { maxCodeLength } from '#core/http/file-codes';
import { appIdField, emailField, hwidField, licenseKeyField } from '#core/domain/fields';

export const appSchema = z.lazy(() => z.object({ app_id: appIdField }));

export const signInSchema = z.lazy(() => z.object({ app_id: appIdField, email: emailField }));

export const verifySchema = z.lazy(() =>
  z.object({
    app_id: appIdField,
    email: emailField,
    code: z.string().check(z.trim(), z.regex(/^\d{6}$/, 'must be the 6 digits of the code')),
  }),
);

/** The session is the Authorization header's: the body holds nothing, and a field sent is a mistake to show. */
export const sessionOnlySchema = z.lazy(() => z.strictObject({}));

export const releaseDeviceSchema = z.lazy(() => z.strictObject({ license_key: licenseKeyField, hwid: hwidField }));

export const billingSchema = z.lazy(() => z.strictObject({ license_key: licenseKeyField }));

/** The activation request is checked against the license by the route, which names `request` when it does not match. */
export const licenseFileSchema = z.lazy(() => z.strictObject({ license_key: licenseKeyField, request: z.string().check(z.minLength(1), z.maxLength(maxCodeLength)) }));
