import * as z from 'zod/mini';
import type { Deps } from '#core/deps';
import { emailField, licenseKeyField } from '#core/domain/fields';
import type { App } from '#data/model/app';
import type { License } from '#data/model/license';
import type { PriceMapping, StripeConnection, StripeOrigin } from '#data/model/stripe';
import type { Subscription } from '#data/model/subscription';
import { addSeconds, iso } from '#shared/clock';
import { convertedTag, trialTag } from '#data/model/trial';
import { ownEntry } from '#shared/own-keys';
import { stripeCustomerField } from './stripe-customer';
import { hwidResetDefaults, newLicense } from '../license/new-license';
import { durationUnitSeconds } from '../license/schemas';
import { emailPurchase } from './purchase-email';
import { listLineItems } from './stripe-api';
import { revealSecret } from './stripe-secrets';
import * as apps from '#data/app.repo';
import * as stripe from '#data/stripe.repo';
import * as subscriptions from '#data/subscription.repo';

/**
 * What each handled Stripe event does to an application's licenses
 * (docs/stripe.md, "What Stripe's events do"). Objects are read leniently with
 * schemas of the fields used only, so an endpoint on an older or newer Stripe
 * API version works alike.
 */

/** An expandable reference: Stripe sends the id, or the object when expanded. */
const reference = z.lazy(() => z.optional(z.nullable(z.union([z.string(), z.object({ id: z.string() })]))));
const idOf = (value: z.infer<typeof reference>): string | undefined => (typeof value === 'string' ? value : (value?.id ?? undefined));

const sessionSchema = z.lazy(() =>
  z.object({
    id: z.string(),
    customer: reference,
    customer_email: z.optional(z.nullable(z.string())),
    customer_details: z.optional(z.nullable(z.object({ email: z.optional(z.nullable(z.string())) }))),
    subscription: reference,
    payment_intent: reference,
    invoice: reference,
    /** The owner's own reference (Checkout's `client_reference_id`): a trial's key, to buy that trial. */
    client_reference_id: z.optional(z.nullable(z.string())),
    metadata: z.optional(z.nullable(z.record(z.string(), z.unknown()))),
  }),
);

const invoiceSchema = z.lazy(() =>
  z.object({
    /** Before API version 2025-03-31 the invoice names its subscription itself; since, under `parent`. */
    subscription: reference,
    parent: z.optional(z.nullable(z.object({ subscription_details: z.optional(z.nullable(z.object({ subscription: reference }))) }))),
    period_end: z.optional(z.number()),
    lines: z.optional(z.object({ data: z.array(z.object({ period: z.optional(z.object({ end: z.number() })) })) })),
  }),
);

const subscriptionSchema = z.lazy(() => z.object({ id: z.string() }));

const chargeSchema = z.lazy(() =>
  z.object({
    amount: z.number(),
    amount_refunded: z.number(),
    refunded: z.boolean(),
    payment_intent: reference,
    /** Present before API version 2025-03-31 only. */
    invoice: reference,
  }),
);

export interface StripeEvent {
  id: string;
  type: string;
  data: { object: unknown };
}

/** One Checkout Session makes at most this many licenses: a bigger order is no purchase of seats but a mistake in a price's quantity. */
export const maxLicensesPerSession = 1000;

/** Licenses written per transaction: with the event's mark and the session's four records, under DynamoDB's 100 items. */
const licensesPerWrite = 90;
/** Licenses changed per transaction, with the event's mark. */
const changesPerWrite = 99;

/** A generated key taken (125 random bits) even once is practically impossible; three times is a fault. */
const keyAttempts = 3;
/** Reads of a part's licenses when they keep changing under the write. */
const changeAttempts = 5;

function parts<T>(items: T[], size: number): T[][] {
  return Array.from({ length: Math.ceil(items.length / size) }, (_, index) => items.slice(index * size, (index + 1) * size));
}

/**
 * Checkout completed: one license per unit of each line item whose price is
 * mapped, with the session's customer, subscription and email as metadata,
 * the customer's email as the license's email, and the tag `stripe`; unmapped
 * prices make nothing. With the application's portal on, the buyer is emailed
 * the keys.
 */
async function checkoutCompleted(deps: Deps, connection: StripeConnection, eventId: string, object: unknown): Promise<number> {
  const session = sessionSchema.parse(object);
  const apiKey = await revealSecret(deps, connection.app_id, connection.api_key_ciphertext);
  const lineItems = await listLineItems(deps.config, apiKey, session.id);
  const units = lineItems.flatMap((item) => {
    const mapping = item.price === undefined ? undefined : ownEntry(connection.prices, item.price);
    return mapping ? Array.from({ length: item.quantity }, () => mapping) : [];
  });
  if (units.length === 0) return 0;
  if (units.length > maxLicensesPerSession) throw new Error(`Checkout Session ${session.id} would make ${units.length} licenses, more than ${maxLicensesPerSession}`);

  const { app, tiers } = await licenseSources(deps, connection, units);
  const [subscription, paymentIntent, invoice] = [idOf(session.subscription), idOf(session.payment_intent), idOf(session.invoice)];
  const email = session.customer_details?.email ?? session.customer_email ?? undefined;
  // The license's own email is the address as emailField reads it; one that is no address leaves the license without.
  const customer = emailField.safeParse(email);
  const licenseEmail = customer.success ? { email: customer.data } : {};
  const metadata = {
    [stripeCustomerField]: idOf(session.customer) ?? null,
    stripe_checkout_session: session.id,
    ...(subscription ? { stripe_subscription: subscription } : {}),
    ...(email ? { email } : {}),
  };
  const origin: StripeOrigin = { checkoutSession: session.id, stripeIds: [session.id, subscription, paymentIntent, invoice].filter((id) => id !== undefined) };
  const licenseFor = (mapping: PriceMapping): License =>
    newLicense(deps, {
      teamId: connection.team_id,
      subscription: tiers.get(mapping.subscription_id)!,
      hwid_reset_allowed: app.default_hwid_reset_allowed ?? hwidResetDefaults.hwid_reset_allowed,
      hwid_reset_interval: app.default_hwid_reset_interval ?? hwidResetDefaults.hwid_reset_interval,
      duration_unit: mapping.duration_unit,
      duration_value: mapping.duration_value,
      hwid_lock: mapping.hwid_lock ?? false,
      tags: ['stripe'],
      metadata,
      max_devices: mapping.max_devices ?? 1,
      lease_seconds: null,
      ...(mapping.features === undefined ? {} : { features: mapping.features }),
      ...licenseEmail,
    });

  let made = 0;
  // A session naming a key keeps its first part for that key's unit: the trial it converts, or else a new license.
  // Which of the two may differ between deliveries, the part does not, so a redelivery after the conversion meets
  // its mark instead of making a license for that unit again.
  const named = trialKeyOf(session);
  const rest = named === undefined ? units : units.slice(1);
  if (named !== undefined) {
    const trial = await convertibleTrial(deps, connection, named, units[0]!, tiers);
    const outcome = trial && (await stripe.convertTrial(deps.table, eventId, 0, origin, trial, converted(deps, trial, units[0]!, metadata, licenseEmail), deps.clock.now()));
    if (outcome === 'applied') made += 1;
    // No trial to convert, or it changed under the write (bought meanwhile, deleted): the unit makes a license as any other.
    else if (outcome !== 'already_applied') made += await createPart(deps, eventId, 0, origin, [units[0]!], licenseFor);
  }
  const firstPart = named === undefined ? 0 : 1;
  for (const [index, mappings] of parts(rest, licensesPerWrite).entries()) {
    made += await createPart(deps, eventId, firstPart + index, origin, mappings, licenseFor);
  }
  await emailPurchase(deps, app, session.id, licenseEmail.email);
  return made;
}

/** One part of a session's new licenses, under new keys while a key is taken: how many it made (none when applied before). */
async function createPart(deps: Deps, eventId: string, part: number, origin: StripeOrigin, mappings: PriceMapping[], licenseFor: (mapping: PriceMapping) => License): Promise<number> {
  for (let attempt = 0; attempt < keyAttempts; attempt++) {
    const written = await stripe.createLicenses(deps.table, eventId, part, origin, mappings.map(licenseFor), deps.clock.now());
    if (!Array.isArray(written)) return written === 'applied' ? mappings.length : 0;
  }
  throw new Error(`${keyAttempts} sets of generated license keys in a row were taken`);
}

/**
 * The trial key a session names (docs/stripe.md#buying-a-trial): its `client_reference_id`, else its
 * metadata's `license_key`; a value that is no license key names none.
 */
function trialKeyOf(session: z.infer<typeof sessionSchema>): string | undefined {
  const metadata = session.metadata ?? undefined;
  const named = session.client_reference_id ?? (metadata ? ownEntry(metadata, 'license_key') : undefined);
  return licenseKeyField.safeParse(named).success ? (named as string) : undefined;
}

/**
 * The named license when it is a trial of this application that the unit's tier can take in place: one of the
 * same team and application, still tagged `trial`, whose tier agrees with the price's on `single_key_per_hwid`
 * (this function keeps no HWID index items).
 */
async function convertibleTrial(deps: Deps, connection: StripeConnection, licenseKey: string, mapping: PriceMapping, tiers: Map<string, Subscription>): Promise<License | undefined> {
  const [license] = await stripe.licenses(deps.table, [licenseKey]);
  if (!license || license.team_id !== connection.team_id || license.app_id !== connection.app_id || !license.tags.includes(trialTag)) return undefined;
  const [from, to] = [(await subscriptions.getMany(deps.table, [license.subscription_id])).get(license.subscription_id), tiers.get(mapping.subscription_id)!];
  return from && from.single_key_per_hwid === to.single_key_per_hwid ? license : undefined;
}

/**
 * A trial as bought: the price's tier, its duration from now, its device rules (never fewer seats than devices it
 * holds), its features, tagged `stripe` and `trial-converted` instead of `trial`, with the session's metadata and
 * the buyer's email when the session has one.
 */
function converted(deps: Pick<Deps, 'clock'>, trial: License, mapping: PriceMapping, metadata: Record<string, unknown>, email: { email?: string }): License {
  const duration = mapping.duration_value * durationUnitSeconds[mapping.duration_unit];
  return {
    ...trial,
    subscription_id: mapping.subscription_id,
    initial_duration: duration,
    expires_at: addSeconds(iso(deps.clock.now()), duration),
    max_devices: Math.max(mapping.max_devices ?? 1, trial.hwids.length),
    hwid_lock: mapping.hwid_lock ?? false,
    tags: [...new Set([...trial.tags.filter((tag) => tag !== trialTag), 'stripe', convertedTag])],
    metadata: { ...trial.metadata, ...metadata },
    features: mapping.features ?? [],
    ...email,
  };
}

/** The application and the tiers the units name; a tier deleted or moved since the price map was set is a fault the owner must fix. */
async function licenseSources(deps: Deps, connection: StripeConnection, units: PriceMapping[]): Promise<{ app: App; tiers: Map<string, Subscription> }> {
  const app = await apps.get(deps.table, connection.app_id);
  if (!app || app.team_id !== connection.team_id) throw new Error(`application ${connection.app_id} is gone or changed owner`);
  const tiers = await subscriptions.getMany(deps.table, [...new Set(units.map((unit) => unit.subscription_id))]);
  for (const unit of units) {
    const tier = tiers.get(unit.subscription_id);
    if (!tier || tier.app_id !== connection.app_id) {
      throw new Error(`the price map of application ${connection.app_id} names subscription ${unit.subscription_id}, which is no longer one of its tiers`);
    }
  }
  return { app, tiers };
}

type Change = { set: Partial<Pick<License, 'status' | 'expires_at'>>; expected: Partial<Pick<License, 'expires_at'>> };

/**
 * Changes the licenses made for these Stripe objects, part by part in the
 * order they were made, each part once per event: a license changed meanwhile
 * is read again and judged again.
 */
async function changeLicenses(deps: Deps, connection: StripeConnection, eventId: string, stripeIds: string[], decide: (license: License) => Change | undefined): Promise<number> {
  const licenseKeys = [...new Set((await Promise.all(stripeIds.map((id) => stripe.licenseKeysOf(deps.table, connection.app_id, id)))).flat())];
  let changed = 0;
  for (const [part, keysOfPart] of parts(licenseKeys, changesPerWrite).entries()) {
    for (let attempt = 0; ; attempt++) {
      if (attempt >= changeAttempts) throw new Error(`licenses of Stripe event ${eventId} kept changing under its write`);
      const licenses = (await stripe.licenses(deps.table, keysOfPart)).filter((license) => license.team_id === connection.team_id && license.app_id === connection.app_id);
      const changes = licenses.flatMap((license) => {
        const change = decide(license);
        return change ? [{ license, ...change }] : [];
      });
      if (changes.length === 0) break;
      const outcome = await stripe.updateLicenses(deps.table, connection.app_id, eventId, part, changes, deps.clock.now());
      if (outcome === 'applied') changed += changes.length;
      if (!Array.isArray(outcome)) break;
    }
  }
  return changed;
}

/** The end of the period an invoice paid for: its subscription lines' latest end (the invoice's own `period_end` is when it was made). */
function paidUntil(invoice: z.infer<typeof invoiceSchema>): string | undefined {
  const ends = (invoice.lines?.data ?? []).flatMap((line) => (line.period ? [line.period.end] : []));
  const end = ends.length > 0 ? Math.max(...ends) : invoice.period_end;
  return end === undefined ? undefined : iso(new Date(end * 1000));
}

/** A subscription's invoice paid: its used licenses now expire at the paid period's end, never earlier than they did; unused ones keep their duration. */
function invoicePaid(deps: Deps, connection: StripeConnection, eventId: string, object: unknown): Promise<number> {
  const invoice = invoiceSchema.parse(object);
  const subscription = idOf(invoice.subscription) ?? idOf(invoice.parent?.subscription_details?.subscription);
  const until = paidUntil(invoice);
  if (subscription === undefined || until === undefined) return Promise.resolve(0);
  return changeLicenses(deps, connection, eventId, [subscription], (license) =>
    license.expires_at === null || license.expires_at >= until ? undefined : { set: { expires_at: until }, expected: { expires_at: license.expires_at } },
  );
}

const pause = (license: License): Change | undefined => (license.status === 'paused' ? undefined : { set: { status: 'paused' }, expected: {} });

/** A full refund pauses what the refunded payment bought: the Checkout Session it paid, or whose first invoice it paid. */
function chargeRefunded(deps: Deps, connection: StripeConnection, eventId: string, object: unknown): Promise<number> {
  const charge = chargeSchema.parse(object);
  if (!charge.refunded && charge.amount_refunded < charge.amount) return Promise.resolve(0);
  const paid = [idOf(charge.payment_intent), idOf(charge.invoice)].filter((id) => id !== undefined);
  return changeLicenses(deps, connection, eventId, paid, pause);
}

/** What the event changed: licenses made or changed; 0 for types and prices the service leaves alone. */
export function applyStripeEvent(deps: Deps, connection: StripeConnection, event: StripeEvent): Promise<number> {
  switch (event.type) {
    case 'checkout.session.completed':
      return checkoutCompleted(deps, connection, event.id, event.data.object);
    case 'invoice.paid':
      return invoicePaid(deps, connection, event.id, event.data.object);
    case 'customer.subscription.deleted':
      return changeLicenses(deps, connection, event.id, [subscriptionSchema.parse(event.data.object).id], pause);
    case 'charge.refunded':
      return chargeRefunded(deps, connection, event.id, event.data.object);
    default:
      return Promise.resolve(0);
  }
}
