/// <reference lib="dom" />
import type { Browser } from 'playwright-core';
import { expectAccessible } from '../support/axe';
import { api, desktopAndPhone, emailTo, expectNoHorizontalScroll, foundByEmail, launchChromium, startService, type StartedService } from '../support/browser';
import { startStripeStandIn, type StripeStandIn } from '../support/stripe';
import { timeFor } from '../support/time';

/**
 * The portal's billing button in Chromium against `npm start`, with Stripe's API on loopback: shown on the license
 * Stripe sold and on no other, and it takes the customer to the billing page Stripe opened for the license's buyer.
 * Stripe's page itself is answered by the browser's route handler: nothing leaves the machine.
 */
const customer = 'cus_portalbillinge2e';
let stripe: StripeStandIn;
let service: StartedService;
let browser: Browser;

beforeAll(async () => {
  stripe = await startStripeStandIn(new Map(), new Set([customer]));
  [service, browser] = await Promise.all([startService({ STRIPE_API_URL: stripe.url.origin }), launchChromium()]);
  const settings = await api(service, '/app/settings', { app_id: service.appId, portal: { enabled: true, sender_name: 'Acme Tools' } });
  expect(settings.status).toBe(200);
  const connected = await api(service, '/integration/stripe/set', { app_id: service.appId, webhook_secret: 'whsec_portalbillinge2e0123456789abc', api_key: 'rk_test_portalbillinge2e0123456789', prices: {} });
  expect(connected.status).toBe(200);
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await service?.stop();
  await stripe?.close();
});

/** A customer with a license Stripe sold (its buyer recorded as Stripe records it) and one the owner made: their keys. */
async function customerWithLicenses(email: string): Promise<{ bought: string; made: string }> {
  const tier = await api<{ subscription_id: string }>(service, '/subscription/create', { app_id: service.appId, name: 'Pro', level: 1 });
  const create = async (fields: object) =>
    (await api<{ key: string }>(service, '/license/create', { app_id: service.appId, subscription_id: tier.body.data.subscription_id, duration_unit: 'days', duration_value: 365, email, ...fields })).body.data.key;
  const keys = { bought: await create({ metadata: { stripe_customer: customer } }), made: await create({}) };
  await foundByEmail(service, email, 2);
  return keys;
}

/** A session of `email`, signed in through the routes with the code the outbox holds, as the portal stores one. */
async function sessionOf(email: string): Promise<{ app_id: string; email: string; token: string; expires_at: string }> {
  expect((await api(service, '/portal/sign-in', { app_id: service.appId, email })).status).toBe(202);
  const code = /: (\d{6})\n/.exec((await emailTo(service, email, 1)).text)?.[1];
  const verified = await api<{ token: string; expires_at: string }>(service, '/portal/verify', { app_id: service.appId, email, code });
  expect(verified.status).toBe(200);
  return { app_id: service.appId, email, ...verified.body.data };
}

describe("the portal's billing", () => {
  it.each(desktopAndPhone)('offers billing on the license Stripe sold only, and opens the page Stripe made for its buyer (%s)', async (name, viewport) => {
    const email = `billing-${name}-${Date.now()}@example.com`;
    const { bought, made } = await customerWithLicenses(email);
    const session = await sessionOf(email);
    const context = await browser.newContext({ viewport });
    await context.addInitScript((stored) => sessionStorage.setItem('portal.session', stored), JSON.stringify(session));
    await context.route('https://billing.stripe.com/**', (route) => route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>Stripe billing</title><h1>Billing</h1>' }));
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);

    await page.goto(`${service.url}/portal/?app=${service.appId}`);
    await page.getByRole('heading', { name: 'Your licenses' }).waitFor();
    const boughtCard = page.getByRole('region', { name: bought });
    await boughtCard.getByRole('button', { name: 'Manage billing' }).waitFor();
    await page.getByRole('region', { name: made }).waitFor();
    expect(await page.getByRole('region', { name: made }).getByRole('button', { name: 'Manage billing' }).count()).toBe(0);
    await expectAccessible(page, `licenses with billing (${name})`);
    if (viewport.width < 500) await expectNoHorizontalScroll(page, `licenses with billing (${name})`);

    const opened = stripe.requests.length;
    await boughtCard.getByRole('button', { name: 'Manage billing' }).click();
    await page.waitForURL(`https://billing.stripe.com/p/session/test_${customer}`);
    const [call] = stripe.requests.slice(opened);
    expect(call?.path).toBe('/v1/billing_portal/sessions');
    expect(call?.form.get('customer')).toBe(customer);
    expect(call?.form.get('return_url')).toBe(`${service.url}/portal/?app=${service.appId}`);
    await context.close();
  }, timeFor(6, 15_000));
});
