import type { Deps } from '#core/deps';
import { canonicalUuid, isUuid } from '#core/ids';
import { invalidInput } from '#core/http/errors';
import type { Reply, RequestInfo } from '#core/http/handler';
import { InvalidStripeSignature, verifiedEvent } from './stripe-api';
import { applyStripeEvent } from './stripe-events';
import { revealSecret } from './stripe-secrets';
import * as stripe from '#data/stripe.repo';

/**
 * One answer for every request that cannot be shown to come from the
 * application's Stripe endpoint: no such application, no connection, a
 * missing, stale or wrong signature. Stripe shows it in the endpoint's log; a
 * caller learns nothing about which application ids exist.
 */
const notFromStripe = () => invalidInput('Stripe-Signature: does not verify with the signing secret of this application’s Stripe endpoint');

/**
 * POST /stripe/webhook/<app_id> (docs/stripe.md): the body is verified against
 * the `Stripe-Signature` header before anything is read from it; a handled
 * event is applied once, others are answered 200 and change nothing.
 */
export async function receiveStripeEvent(deps: Deps, _body: unknown, request: RequestInfo): Promise<Reply> {
  const given = request.pathParameter('app_id');
  if (given === undefined || !isUuid(given)) throw notFromStripe();
  const appId = canonicalUuid(given);
  const connection = await stripe.getConnection(deps.table, appId);
  if (!connection) throw notFromStripe();
  const secret = await revealSecret(deps, appId, connection.webhook_secret_ciphertext);
  let event;
  try {
    event = await verifiedEvent(request.rawBody, request.header('stripe-signature'), secret);
  } catch (error) {
    if (error instanceof InvalidStripeSignature) throw notFromStripe();
    throw error;
  }
  const changed = await applyStripeEvent(deps, connection, event);
  deps.logger.info('stripe event received', { app_id: appId, stripe_event: event.id, stripe_event_type: event.type, licenses_changed: changed });
  return { body: { received: true } };
}
