/// <reference lib="dom" />
import type { Browser, BrowserContext, Page } from 'playwright-core';
import Stripe from 'stripe';
import { expectAccessible } from '../support/axe';
import { api, launchChromium, openDashboard, startService, tab, type StartedService } from '../support/browser';
import { startStripeStandIn, stripeEvent, type LineItems, type StripeStandIn } from '../support/stripe';

/**
 * Trials on the dashboard against `npm start`: turned on and off on the settings
 * screen (what /app/settings then answers), and trial licenses listed, filtered
 * by their tag and marked once bought through Stripe (a stand-in of its API on
 * loopback, the event signed by the `stripe` package's own test signer).
 */
let context: BrowserContext;
let page: Page;

const lineItems: LineItems = new Map();
const session = {} as { service: StartedService; browser: Browser; stripe: StripeStandIn };
beforeAll(async () => {
  session.stripe = await startStripeStandIn(lineItems);
  [session.service, session.browser] = await Promise.all([startService({ STRIPE_API_URL: session.stripe.url.href }), launchChromium()]);
}, 90_000);
afterAll(async () => {
  await session.browser?.close();
  await session.service?.stop();
  await session.stripe?.close();
});
beforeEach(async () => {
  ({ context, page } = await openDashboard(session));
});
afterEach(async () => {
  await context?.close();
});

const settings = async () => (await api(session.service, '/app/settings', { app_id: session.service.appId })).body.data;

/** A device's trial: `npm start` caches the application a few seconds, so a trial just turned on may still be refused. */
async function trialOf(hwid: string): Promise<string> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const answer = await fetch(`${session.service.url}/trial`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ app_id: session.service.appId, hwid }) });
    const body = (await answer.json()) as { message: string; data?: { license: string } };
    if (body.message === 'TRIAL_STARTED') return body.data!.license;
    if (body.message !== 'TRIALS_DISABLED' || Date.now() > deadline) throw new Error(`/trial answered ${JSON.stringify(body)}`);
    await new Promise((done) => setTimeout(done, 250));
  }
}

describe('trials on the dashboard', () => {
  it('turns trials on with a tier, a length and a limit per address over 24 hours, which /app/settings then answers, and off again', async () => {
    await api(session.service, '/subscription/create', { app_id: session.service.appId, name: 'Listed first', level: 2 });
    const tier = (await api<{ subscription_id: string }>(session.service, '/subscription/create', { app_id: session.service.appId, name: 'Trial tier', level: 1 })).body.data;

    await tab(page, 'Signing key & settings').click();
    const form = page.getByRole('form', { name: 'Trials' });
    await form.getByText('Off: a program asking for a trial is refused.', { exact: false }).waitFor();
    await form.getByLabel('Subscription of trial licenses').selectOption({ label: 'Trial tier' });
    await form.getByLabel('Trial length (seconds, 3600 to 7776000)').fill('604800');
    await form.getByLabel('Trials one address may start in 24 hours').fill('3');
    await form.getByLabel('Features of trial licenses (comma-separated, optional)').fill('export, sync');
    await form.getByRole('button', { name: 'Turn trials on' }).click();
    await page.getByText('Trials on: 1 week on Trial tier, at most 3 from one address in any 24 hours.').waitFor();
    expect((await settings()).trial).toEqual({ subscription_id: tier.subscription_id, duration_seconds: 604800, max_devices: 1, per_ip_per_day: 3, features: ['export', 'sync'] });
    await expectAccessible(page, 'turns trials on with a tier, a length and a daily limit');
    // Shown again, the card holds what is stored, its tier among the others.
    await tab(page, 'Licenses').click();
    await tab(page, 'Signing key & settings').click();
    await form.getByText('On: a device without a key gets one trial of 1 week', { exact: false }).waitFor();
    await form.getByRole('option', { name: 'Listed first' }).waitFor({ state: 'attached' });
    expect(await form.getByLabel('Subscription of trial licenses').inputValue()).toBe(tier.subscription_id);
    expect(await form.getByLabel('Trials one address may start in 24 hours').inputValue()).toBe('3');

    await form.getByRole('button', { name: 'Turn trials off' }).click();
    await page.getByText('Trials off: POST /trial answers TRIALS_DISABLED.').waitFor();
    expect((await settings()).trial).toBeNull();
  }, 60_000);

  it('lists trials by their tag, marks them, and marks a bought trial', async () => {
    const tier = (await api<{ subscription_id: string }>(session.service, '/subscription/create', { app_id: session.service.appId, name: 'Listed trials', level: 1 })).body.data;
    const on = await api(session.service, '/app/settings', { app_id: session.service.appId, trial: { subscription_id: tier.subscription_id, duration_seconds: 86400, per_ip_per_day: 100 } });
    expect(on.status).toBe(200);
    const running = await trialOf('dashboard-trial-1');
    const bought = await trialOf('dashboard-trial-2');
    const other = (await api<{ key: string }>(session.service, '/license/create', { app_id: session.service.appId, subscription_id: tier.subscription_id, duration_unit: 'days', duration_value: 1 })).body.data.key;
    await buy(bought, tier.subscription_id);

    await tab(page, 'Licenses').click();
    await page.getByRole('combobox', { name: 'Trials' }).selectOption('trial');
    const rows = page.locator('table.licenses tbody tr');
    await page.locator('table.licenses tbody tr', { hasText: running }).waitFor();
    expect(await rows.count()).toBe(1);
    expect(await rows.first().locator('.badge.trial').textContent()).toBe('trial');

    await page.getByRole('combobox', { name: 'Trials' }).selectOption('trial-converted');
    await page.locator('table.licenses tbody tr', { hasText: bought }).waitFor();
    expect(await rows.count()).toBe(1);
    expect(await rows.first().locator('.badge.converted').textContent()).toBe('bought trial');
    await expectAccessible(page, 'lists trials by their tag, marks them, and marks a bought trial');

    await page.getByRole('combobox', { name: 'Trials' }).selectOption('');
    await page.locator('table.licenses tbody tr', { hasText: other }).waitFor();
  }, 60_000);
});

/** A Stripe Checkout naming the trial's key, completed (docs/stripe.md#buying-a-trial). */
async function buy(key: string, subscriptionId: string) {
  const secret = 'whsec_dashboardtrialsecret0123456789';
  const connected = await api(session.service, '/integration/stripe/set', {
    app_id: session.service.appId,
    webhook_secret: secret,
    api_key: 'rk_test_dashboardtrialkey0123456789',
    prices: { price_full: { subscription_id: subscriptionId, duration_unit: 'years', duration_value: 1 } },
  });
  expect(connected.status).toBe(200);
  lineItems.set('cs_test_dashboardtrial', [{ price: 'price_full', quantity: 1 }]);
  const payload = JSON.stringify(stripeEvent('evt_dashboardtrial', 'checkout.session.completed', { id: 'cs_test_dashboardtrial', object: 'checkout.session', client_reference_id: key, customer: 'cus_dashboard' }));
  const answer = await fetch(`${session.service.url}/stripe/webhook/${session.service.appId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'stripe-signature': Stripe.webhooks.generateTestHeaderString({ payload, secret }) },
    body: payload,
  });
  expect(answer.status).toBe(200);
  expect((await api<{ tags: string[] }>(session.service, '/license/get', { license_key: key })).body.data.tags).toEqual(['stripe', 'trial-converted']);
}
