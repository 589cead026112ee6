import type * as z from 'zod/mini';
import type { Deps } from '#core/deps';
import { answerSigning, checkContentDigest, checkedNonce } from '#core/signing/answer-signing';
import { createGroupHandler, type DepsSource, type Endpoints, type RequestInfo } from '#core/http/handler';
import { signingDepsFromEnv } from '#core/signing/signing-deps';
import { validate } from '#core/http/validation';
import { authenticate } from './auth';
import { blacklistProbes } from './auth-checks';
import { countsAsAuthFailure } from './failure-count';
import { offlineToken } from './offline-token';
import { registerCredentials, registeredMessage } from './register';
import { releaseSeat } from './release';
import { resetHwid } from './reset-hwid';
import { authSchema, borrowSecondsOf, licenseFileBody, licenseFileFields, registerSchema, releaseSchema, resetHwidSchema, returnCodeOf, trialSchema, usageRequest } from './schemas';
import { checkOutLicenseFile } from './license-file';
import { recordUsage, usageRecordedMessage } from './usage';
import { startTrial } from './trial';

/**
 * A client route's body after its 400 checks (docs/client-api.md#check-order), then the
 * nonce's and the route's own fields' (`extra`), then the request's Content-Digest: all before any read.
 */
function clientInput<S extends z.ZodMiniType, E = undefined>(
  schema: S,
  body: unknown,
  request: RequestInfo,
  extra?: (body: unknown) => E,
): { input: z.infer<S>; nonce: string | undefined; extra: E } {
  const input = validate('client', schema, body);
  const nonce = checkedNonce(body, request.header);
  const fields = extra?.(body) as E;
  checkContentDigest(request.rawBody, request.header);
  return { input, nonce, extra: fields };
}

/** A check that fails for one of the application's reasons counts as a failed authentication of it. */
async function countingFailures<T>(deps: Deps, appId: string, check: () => Promise<T>): Promise<T> {
  try {
    return await check();
  } catch (error) {
    if (countsAsAuthFailure(error)) deps.authFailures.note(appId);
    throw error;
  }
}

export const endpoints: Endpoints<'client'> = {
  '/auth': async (deps, body, request) => {
    const { input, nonce } = clientInput(authSchema, body, request);
    const borrowSeconds = borrowSecondsOf(body);
    const success = await countingFailures(deps, input.appId, () => authenticate(deps, input, blacklistProbes(request, input.hwid, deps.config.trustedViewerHeaders), borrowSeconds));
    // A borrow always carries its token: it is what the device works offline with until the lease ends. On a
    // floating license a token comes only with a borrow, which the client cannot release before the token
    // ends: under a lease it could release, a token would outlive its seat (docs/licensing-models.md#floating-seats).
    const borrow = borrowSeconds === undefined ? undefined : success.lease;
    const token = borrow !== undefined || (input.offlineToken && success.lease === undefined);
    const data = token ? { ...success.data, offline_token: await offlineToken(deps, { ...success, nonce, borrow }) } : success.data;
    return { body: { success: true, message: success.message, data } };
  },
  '/reset-hwid': async (deps, body, request) => {
    const { input } = clientInput(resetHwidSchema, body, request);
    const { message, data } = await resetHwid(deps, input, blacklistProbes(request, input.hwid, deps.config.trustedViewerHeaders));
    return { body: { success: true, message, data } };
  },
  '/release': async (deps, body, request) => {
    const { input } = clientInput(releaseSchema, body, request);
    const { message, data } = await releaseSeat(deps, input, blacklistProbes(request, input.hwid, deps.config.trustedViewerHeaders));
    return { body: { success: true, message, data } };
  },
  '/usage': async (deps, body, request) => {
    const { input, extra } = clientInput(authSchema, body, request, usageRequest);
    const data = await recordUsage(deps, { ...input, ...extra }, blacklistProbes(request, input.hwid, deps.config.trustedViewerHeaders));
    return { body: { success: true, message: usageRecordedMessage, data } };
  },
  '/license-file': async (deps, body, request) => {
    const asked = licenseFileBody(body);
    const { input, nonce, extra } = clientInput(authSchema, asked.body, request, licenseFileFields);
    const probes = blacklistProbes(request, input.hwid, deps.config.trustedViewerHeaders);
    const fields = { ...extra, airGapped: asked.activation !== undefined, nonce: asked.activation?.nonce ?? nonce };
    const { message, data } = await countingFailures(deps, input.appId, () => checkOutLicenseFile(deps, input, probes, fields));
    return { body: { success: true, message, data } };
  },
  '/license-file/return': async (deps, body, request) => {
    const code = returnCodeOf(body);
    checkedNonce(body, request.header);
    checkContentDigest(request.rawBody, request.header);
    const input = { appId: code.appId, credential: { license: code.license }, hwid: code.hwid };
    const { message, data } = await resetHwid(deps, input, blacklistProbes(request, code.hwid, deps.config.trustedViewerHeaders), { returned: { jti: code.jti } });
    return { body: { success: true, message, data } };
  },
  '/register': async (deps, body, request) => {
    await registerCredentials(deps, clientInput(registerSchema, body, request).input);
    return { body: { success: true, message: registeredMessage } };
  },
  '/trial': async (deps, body, request) => {
    const { input } = clientInput(trialSchema, body, request);
    const { message, data } = await startTrial(deps, input, blacklistProbes(request, input.hwid, deps.config.trustedViewerHeaders), request.sourceIp);
    return { body: { success: true, message, data } };
  },
};

export const createHandler = (deps: DepsSource) => createGroupHandler('client', endpoints, deps, answerSigning);

export const handler = createHandler(signingDepsFromEnv);
