import type middy from '@middy/core';
import type { APIGatewayProxyResult } from 'aws-lambda';
import type { Deps } from '../deps';
import type { AnswerLayer, RequestContext } from '../http/handler';
import { badClientRequest, clientMessages } from '../http/errors';
import { canonicalUuid, isUuid } from '../ids';
import { describeError } from '../logger';
import { rawBodyOf, type HttpEvent } from '../http/middleware';
import { answerSignatureHeaders, requestContentDigest, requestNonce } from './signatures';
import type { Signer } from '../signer-cache';
import { signerOf } from './signing-keys';
import * as auth from '#data/auth.repo';
import { signedFields } from '../http/file-codes';
import { isPlainObject } from '#shared/plain-object';

type Request = middy.Request<HttpEvent, APIGatewayProxyResult>;
type Middleware = middy.MiddlewareObj<HttpEvent, APIGatewayProxyResult>;

/** The nonce a client route answers with; 400 `Invalid nonce` when body and `Accept-Signature` disagree or one is malformed. */
export function checkedNonce(body: unknown, header: (name: string) => string | undefined): string | undefined {
  const verdict = requestNonce(isPlainObject(body) ? body.nonce : undefined, header('accept-signature'));
  if (verdict.kind === 'invalid') throw badClientRequest(clientMessages.invalidNonce);
  return verdict.kind === 'valid' ? verdict.nonce : undefined;
}

/**
 * A request's Content-Digest against the body bytes it came with: 400
 * `Invalid Content-Digest` when it does not match, names no known algorithm
 * or is malformed. Without the header nothing is checked.
 */
export function checkContentDigest(rawBody: Uint8Array, header: (name: string) => string | undefined): void {
  if (requestContentDigest(header('content-digest'), rawBody).kind === 'invalid') throw badClientRequest(clientMessages.invalidContentDigest);
}

/**
 * The application whose key signs the answer, read through the deps the
 * request worked with (Middy's context, set by the group handler): the item
 * the request itself read costs no read again. A server fault before the
 * request read its application is most often the table failing (after the
 * SDK's retries), so it is not asked again: a key this container already holds
 * signs; so it does when a read now fails.
 */
async function signerFor(base: Deps, request: Request, appId: string): Promise<Signer | undefined> {
  const deps = (request.context as RequestContext).requestDeps ?? base;
  let app = auth.cachedApp(deps, appId);
  // The request read the application and there is none: nothing signs, and reading again would double every such request's reads.
  if (app === null) return undefined;
  if (!app) {
    if ((request.response?.statusCode ?? 500) >= 500) return deps.signers.get(appId);
    try {
      app = (await auth.read(deps, { app: appId })).app;
    } catch {
      return deps.signers.get(appId);
    }
  }
  return app ? signerOf(deps, app) : undefined;
}

/**
 * Signs every answer of a client route (docs/client-api.md, "Signed answers and offline tokens"): success,
 * 4xx and 5xx alike, after the error renderer has made its answer. Answers to
 * a request without a known application stay unsigned: there is no key. A
 * nonce or a Content-Digest that fails its check is left out of the answer
 * (which is then that 400, or a 400 checked before it).
 */
function signAnswers(deps: () => Deps | Promise<Deps>): Middleware {
  const sign = async (request: Request) => {
    const { event, response } = request;
    if (!response || typeof response.body !== 'string') return;
    const signed = signedFields(event.resource, event.body);
    const sentAppId = signed.appId;
    if (typeof sentAppId !== 'string' || !isUuid(sentAppId)) return;
    const appId = canonicalUuid(sentAppId);
    const base = await deps();
    if (!base.config.signAnswers) return;
    try {
      const signer = await signerFor(base, request, appId);
      if (!signer) return;
      const verdict = requestNonce(signed.nonce, event.headers?.['accept-signature']);
      const digest = requestContentDigest(event.headers?.['content-digest'], rawBodyOf(event));
      const headers = answerSignatureHeaders({
        status: response.statusCode,
        body: response.body,
        keyId: signer.keyId,
        privateKey: signer.privateKey,
        created: Math.floor(base.clock.now().getTime() / 1000),
        nonce: verdict.kind === 'valid' ? verdict.nonce : undefined,
        requestDigest: digest.kind === 'valid' ? digest.value : undefined,
      });
      response.headers = { ...response.headers, ...headers };
    } catch (error) {
      // The answer goes out unsigned, which a verifying client treats as a failed authentication.
      base.logger.error('answer not signed', { request_id: event.requestContext?.requestId, app_id: appId, ...describeError(error) });
    }
  };
  return { after: sign, onError: sign };
}

/** The client group's answer layer: every client route, present and future, is signed through it. */
export const answerSigning: AnswerLayer = { middleware: signAnswers };
