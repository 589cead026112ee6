import type middy from '@middy/core';
import type { APIGatewayProxyResult } from 'aws-lambda';
import type { App } from '#data/app.repo';
import type { Deps } from '../deps';
import type { AnswerLayer } from '../http/handler';
import { badClientRequest, clientMessages } from '../http/errors';
import { canonicalUuid, isUuid } from '../domain/ids';
import { describeError } from '../logger';
import { rawBodyOf, type HttpEvent } from '../http/middleware';
import { answerSignatureHeaders, requestContentDigest, requestNonce } from './signatures';
import type { Signer } from './signer-cache';
import { signerOf } from './signing-keys';

type Request = middy.Request<HttpEvent, APIGatewayProxyResult>;
type Middleware = middy.MiddlewareObj<HttpEvent, APIGatewayProxyResult>;

/**
 * The application each request's own reads found, so signing its answer costs
 * no read of its own; `failed` when the request's read failed, so the store
 * that just failed (after the SDK's retries) is not asked again for the answer.
 */
const appsRead = new WeakMap<HttpEvent, App | 'failed'>();

/** The request's deps, noting the application its client-route reads return. */
export function noteAppReads(event: HttpEvent, deps: Deps): Deps {
  const auth = deps.repos.auth;
  const read: typeof auth.read = async (wanted) => {
    let items;
    try {
      items = await auth.read(wanted);
    } catch (error) {
      appsRead.set(event, 'failed');
      throw error;
    }
    if (items.app) appsRead.set(event, items.app);
    return items;
  };
  return { ...deps, repos: { ...deps.repos, auth: { ...auth, read } } };
}

/** The nonce a client route answers with; 400 `Invalid nonce` when body and `Accept-Signature` disagree or one is malformed. */
export function checkedNonce(body: unknown, header: (name: string) => string | undefined): string | undefined {
  const verdict = requestNonce(bodyField(body, 'nonce'), header('accept-signature'));
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

function bodyField(body: unknown, name: string): unknown {
  return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>)[name] : undefined;
}

/**
 * The application whose key signs the answer: the one the request read, else
 * one read now (from the warm cache when it is there). When the table cannot
 * be read (the answer is then usually that 500) a key this container already
 * holds still signs.
 */
async function signerFor(deps: Deps, event: HttpEvent, appId: string): Promise<Signer | undefined> {
  const seen = appsRead.get(event);
  if (seen === 'failed') return deps.signers.get(appId);
  let app = seen;
  if (app?.app_id !== appId) {
    try {
      app = (await deps.repos.auth.read({ app: appId })).app;
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
    const sentAppId = bodyField(event.body, 'app_id');
    if (typeof sentAppId !== 'string' || !isUuid(sentAppId)) return;
    const appId = canonicalUuid(sentAppId);
    const base = await deps();
    if (!base.config.signAnswers) return;
    try {
      const signer = await signerFor(base, event, appId);
      if (!signer) return;
      const verdict = requestNonce(bodyField(event.body, 'nonce'), event.headers?.['accept-signature']);
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
      base.logger.error('answer not signed', { app_id: appId, ...describeError(error) });
    }
  };
  return { after: sign, onError: sign };
}

/** The client group's answer layer: every client route, present and future, is signed through it. */
export const answerSigning: AnswerLayer = { middleware: signAnswers, requestDeps: noteAppReads };
