/// <reference lib="dom" />
import type { Browser, BrowserContext, Page } from 'playwright-core';
import Stripe from 'stripe';
import { expectAccessible } from '../support/axe';
import { api, launchChromium, signIn, type StartedService, startService, tab } from '../support/browser';
import { startStripeStandIn, stripeEvent, type LineItems, type StripeStandIn } from '../support/stripe';

/**
 * The dashboard's Stripe screen in Chromium against `npm start`: the endpoint
 * URL it shows is where a signed Stripe event makes licenses; the secrets are
 * entered, sent, and never shown again; the price map it saves is the one the
 * API answers; disconnecting forgets it.
 */
const secret = 'whsec_dashboardsecret0123456789abcd';
const apiKey = 'rk_test_dashboardkey0123456789abcd';
const lineItems: LineItems = new Map();
let stripe: StripeStandIn;
let service: StartedService;
let browser: Browser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  stripe = await startStripeStandIn(lineItems);
  [service, browser] = await Promise.all([startService({ STRIPE_API_URL: stripe.url.origin }), launchChromium()]);
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await service?.stop();
  await stripe?.close();
});
beforeEach(async () => {
  context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
  page = await context.newPage();
  page.setDefaultTimeout(30_000);
  await signIn(page, `${service.url}/dashboard/`, service.apiKey);
  await page.getByRole('heading', { name: 'Licenses' }).waitFor();
});
afterEach(async () => {
  await context?.close();
});

async function openStripe() {
  await tab(page, 'Stripe').click();
  await page.getByRole('heading', { name: 'Stripe', exact: true }).waitFor();
  await page.locator('[data-field="status"]').waitFor();
}

describe('the Stripe screen', () => {
  it('connects with secrets it never shows back, saves the price map the API then answers, and its endpoint URL takes Stripe’s events', async () => {
    const tier = (await api<{ subscription_id: string }>(service, '/subscription/create', { app_id: service.appId, name: 'Pro', level: 2 })).body.data;
    await openStripe();
    expect(await page.locator('[data-field="status"]').textContent()).toContain('Not connected');
    const endpoint = await page.locator('[data-field="endpoint_url"]').textContent();
    expect(endpoint).toBe(`${service.url}/stripe/webhook/${service.appId}`);

    await page.getByLabel('Signing secret of the endpoint (whsec_…)').fill(secret);
    await page.getByLabel('Restricted key, Checkout Sessions: Read (rk_…)').fill(apiKey);
    await page.getByRole('button', { name: 'Add price' }).click();
    await page.getByLabel('Stripe price id').fill('price_1DashboardPro');
    await page.getByLabel('Subscription tier').selectOption(tier.subscription_id);
    await page.getByLabel('Duration', { exact: true }).fill('1');
    await page.getByLabel('Unit').selectOption('years');
    await page.getByLabel('Devices').fill('3');
    await page.getByRole('button', { name: 'Connect to Stripe' }).click();
    await page.getByText('Connected to Stripe.').waitFor();

    expect(await page.locator('[data-field="status"]').textContent()).toContain('signing secret whsec_…abcd');
    expect(await page.getByLabel('Signing secret of the endpoint (whsec_…)').inputValue()).toBe('');
    expect(await page.getByLabel('Restricted key, Checkout Sessions: Read (rk_…)').inputValue()).toBe('');
    const html = await page.content();
    expect(html).not.toContain(secret);
    expect(html).not.toContain(apiKey);
    const stored = await api(service, '/integration/stripe/get', { app_id: service.appId });
    expect(stored.body.data.prices).toEqual({ price_1DashboardPro: { subscription_id: tier.subscription_id, duration_unit: 'years', duration_value: 1, max_devices: 3 } });

    // Stripe posts to the URL the screen showed.
    const session = 'cs_test_dashboard1';
    lineItems.set(session, [{ price: 'price_1DashboardPro', quantity: 2 }]);
    const payload = JSON.stringify(stripeEvent('evt_dashboard1', 'checkout.session.completed', { id: session, customer: 'cus_dash' }));
    const posted = await fetch(endpoint!, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': Stripe.webhooks.generateTestHeaderString({ payload, secret }) }, body: payload });
    expect(posted.status).toBe(200);
    const made = await api<{ key: string; max_devices: number; tags: string[] }[]>(service, '/integration/stripe/licenses', { app_id: service.appId, checkout_session: session });
    expect(made.body.data).toHaveLength(2);
    expect(made.body.data[0]).toMatchObject({ max_devices: 3, tags: ['stripe'] });
    await expectAccessible(page, 'connects with secrets it never shows back, saves the price m');
  }, 60_000);

  it('changes the price map without the secrets, and disconnects after asking', async () => {
    await openStripe();
    await page.getByText('Leave both fields empty to keep the stored secrets.').waitFor();
    await page.getByRole('button', { name: 'Add price' }).click();
    await page.getByLabel('Stripe price id').nth(1).fill('price_1DashboardBasic');
    await page.getByLabel('Unit').nth(1).selectOption('months');
    await page.getByRole('button', { name: 'Save connection' }).click();
    await page.getByText('Stripe connection saved.').waitFor();
    const prices = (await api(service, '/integration/stripe/get', { app_id: service.appId })).body.data.prices;
    expect(Object.keys(prices).sort()).toEqual(['price_1DashboardBasic', 'price_1DashboardPro']);
    expect(prices.price_1DashboardBasic).toMatchObject({ duration_unit: 'months', duration_value: 1, max_devices: 1 });

    await page.getByRole('button', { name: 'Disconnect' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Disconnect' }).click();
    await page.getByText('Disconnected from Stripe. Licenses made through Stripe stay.').waitFor();
    expect(await page.locator('[data-field="status"]').textContent()).toContain('Not connected');
    expect((await api(service, '/integration/stripe/get', { app_id: service.appId })).body.error_code).toBe('NOT_FOUND');
    await expectAccessible(page, 'changes the price map without the secrets, and disconnects a');
  }, 60_000);

  it('says in words which field was refused, never the validator’s text', async () => {
    await openStripe();
    await page.getByLabel('Signing secret of the endpoint (whsec_…)').fill('whsec_tooshort');
    await page.getByLabel('Restricted key, Checkout Sessions: Read (rk_…)').fill(apiKey);
    await page.getByRole('button', { name: 'Connect to Stripe' }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).toBe('The webhook secret must be the signing secret of a Stripe webhook endpoint (whsec_…). (INVALID_INPUT)');
    await expectAccessible(page, 'says in words which field was refused, never the validator’s');
  }, 60_000);
});
