import type { Deps } from '#core/deps';
import { invalidInput, ManagementError } from '#core/http/errors';
import type { OwnerInput } from '#core/http/handler';
import { managementView } from '#core/domain/license-view';
import { accessDenied, notFound, ownedApp } from '#core/domain/ownership';
import type { StripeConnection } from '#data/model/stripe';
import { iso } from '#shared/clock';
import type { appIdSchema, licensesSchema, setSchema } from './schemas';
import { sealSecret, secretHint } from './stripe-secrets';
import * as stripe from '#data/stripe.repo';
import * as subscriptions from '#data/subscription.repo';

/** Where Stripe is to send an application's events, relative to the API's base URL. */
export const stripeWebhookPath = (appId: string): string => `/stripe/webhook/${appId}`;

const notConnected = () => new ManagementError('NOT_FOUND', 'This application has no Stripe connection');

/** What the owner sees of a connection: never the restricted key, of the signing secret only its hint. */
function connectionView(connection: StripeConnection) {
  return {
    app_id: connection.app_id,
    webhook_secret: connection.webhook_secret_hint,
    prices: connection.prices,
    webhook_path: stripeWebhookPath(connection.app_id),
    created_at: connection.created_at,
    updated_at: connection.updated_at,
  };
}

/** Every tier the price map names must be one of the application's: another owner's is ACCESS_DENIED, a missing one SUBSCRIPTION_NOT_FOUND. */
async function checkTiers(deps: Deps, input: OwnerInput<typeof setSchema>): Promise<void> {
  const tiers = await subscriptions.getMany(deps.table, [...new Set(Object.values(input.prices).map((mapping) => mapping.subscription_id))]);
  for (const [price, mapping] of Object.entries(input.prices)) {
    const tier = tiers.get(mapping.subscription_id);
    if (!tier) throw notFound.subscription();
    if (tier.team_id !== input.teamId) throw accessDenied();
    if (tier.app_id !== input.app_id) throw invalidInput(`prices.${price}.subscription_id: must be a subscription tier of this application`);
  }
}

/**
 * Connects an application to Stripe, or changes its connection. The secrets
 * are needed to connect; afterwards a body without them keeps the stored ones,
 * so the price map can change without sending them again.
 */
export async function setStripe(deps: Deps, input: OwnerInput<typeof setSchema>) {
  await ownedApp(deps, input.teamId, input.app_id);
  await checkTiers(deps, input);
  const stored = await stripe.getConnection(deps.table, input.app_id);
  if (!stored && input.webhook_secret === undefined) throw invalidInput('webhook_secret: is needed to connect the application to Stripe');
  if (!stored && input.api_key === undefined) throw invalidInput('api_key: is needed to connect the application to Stripe');
  const now = iso(deps.clock.now());
  const connection = await stripe.putConnection(deps.table, {
    app_id: input.app_id,
    team_id: input.teamId,
    webhook_secret_ciphertext: input.webhook_secret === undefined ? stored!.webhook_secret_ciphertext : await sealSecret(deps, input.app_id, input.webhook_secret),
    webhook_secret_hint: input.webhook_secret === undefined ? stored!.webhook_secret_hint : secretHint(input.webhook_secret),
    api_key_ciphertext: input.api_key === undefined ? stored!.api_key_ciphertext : await sealSecret(deps, input.app_id, input.api_key),
    prices: input.prices,
    created_at: now,
    updated_at: now,
  });
  return connectionView(connection);
}

export async function getStripe(deps: Deps, input: OwnerInput<typeof appIdSchema>) {
  await ownedApp(deps, input.teamId, input.app_id);
  const connection = await stripe.getConnection(deps.table, input.app_id);
  if (!connection) throw notConnected();
  return connectionView(connection);
}

/** Disconnects: Stripe's later events are refused (400), licenses already made stay. */
export async function deleteStripe(deps: Deps, input: OwnerInput<typeof appIdSchema>) {
  await ownedApp(deps, input.teamId, input.app_id);
  if (!(await stripe.deleteConnection(deps.table, input.app_id))) throw notConnected();
  return { app_id: input.app_id, deleted: true };
}

/** The licenses made for a Checkout Session, oldest first; none yet while Stripe has not told the service of it. */
export async function stripeLicenses(deps: Deps, input: OwnerInput<typeof licensesSchema>) {
  await ownedApp(deps, input.teamId, input.app_id);
  const licenseKeys = await stripe.licenseKeysOf(deps.table, input.app_id, input.checkout_session);
  const licenses = (await stripe.licenses(deps.table, licenseKeys)).filter((license) => license.team_id === input.teamId && license.app_id === input.app_id);
  const tiers = await subscriptions.getMany(deps.table, [...new Set(licenses.map((license) => license.subscription_id))]);
  return licenses.map((license) => managementView(license, tiers.get(license.subscription_id), deps.clock.now()));
}
