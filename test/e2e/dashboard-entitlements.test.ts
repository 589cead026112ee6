/// <reference lib="dom" />
import type { BrowserContext, Page } from 'playwright-core';
import { expectAccessible } from '../support/axe';
import { api, openDashboard, serviceAndBrowser, tab } from '../support/browser';

/**
 * The dashboard's screens for entitlements, metered usage and grace: each
 * result on screen is compared with what the management API answers.
 */
let context: BrowserContext;
let page: Page;

const session = serviceAndBrowser();
beforeEach(async () => {
  ({ context, page } = await openDashboard(session));
});
afterEach(async () => {
  await context?.close();
});

describe('the dashboard screens for entitlements, usage and grace', () => {
  it('creates a tier with features, usage limits and grace, and edits its grace', async () => {
    const name = `Metered ${Date.now()}`;
    await tab(page, 'Subscriptions').click();
    const form = page.getByRole('form', { name: 'New subscription' });
    await form.getByLabel('Name', { exact: true }).fill(name);
    await form.getByLabel('Features (comma separated)').fill('sync, reports');
    await form.getByLabel('Usage limits (counter, limit, period, overage; one a line)').fill('exports 50 month 5\napi 1000 day');
    await form.getByLabel('Grace after expiry (hours)').fill('72');
    await form.getByRole('button', { name: 'Create subscription' }).click();
    await page.getByText(`Subscription ${name} created.`).waitFor();

    const tiers = (await api<{ name: string; subscription_id: string }[]>(session.service, '/subscription/get-bulk', { app_id: session.service.appId })).body.data;
    const tier = tiers.find((entry) => entry.name === name)!;
    expect(tier).toMatchObject({
      features: ['reports', 'sync'],
      usage_limits: { exports: { limit: 50, period: 'month', overage: 5 }, api: { limit: 1000, period: 'day', overage: 0 } },
      grace_seconds: 259200,
    });
    const row = page.locator(`tr[data-subscription="${tier.subscription_id}"]`);
    expect(await row.locator('[data-field="grace"]').textContent()).toBe('3 d');

    await row.getByLabel('Grace (hours)').fill('1');
    await row.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved.').waitFor();
    expect((await api(session.service, '/subscription/get-bulk', { app_id: session.service.appId })).body.data.find((entry: { name: string }) => entry.name === name)).toMatchObject({ grace_seconds: 3600 });

    await form.getByLabel('Name', { exact: true }).fill('Broken');
    await form.getByLabel('Usage limits (counter, limit, period, overage; one a line)').fill('exports lots');
    await form.getByRole('button', { name: 'Create subscription' }).click();
    await page.getByRole('alert').getByText(/"exports lots": write a counter as its name, limit, period/).waitFor();
    await expectAccessible(page, 'creates a tier with features, usage limits and grace, and ed');
  }, 60_000);

  it('shows a bar per counter with what /usage counted, resets one, and saves the license features', async () => {
    const tier = await api<{ subscription_id: string }>(session.service, '/subscription/create', {
      app_id: session.service.appId, name: `Usage ${Date.now()}`, level: 1, features: ['reports'], usage_limits: { exports: { limit: 50, period: 'month', overage: 5 }, api: { limit: 10, period: 'none' } },
    });
    const license = await api<{ key: string }>(session.service, '/license/create', { app_id: session.service.appId, subscription_id: tier.body.data.subscription_id, duration_unit: 'days', duration_value: 30 });
    const key = license.body.data.key;
    const client = (path: string, body: object) =>
      fetch(`${session.service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ app_id: session.service.appId, license: key, ...body }) });
    await client('/auth', {});
    expect((await client('/usage', { counter: 'exports', amount: 12 })).status).toBe(200);
    expect((await client('/usage', { counter: 'api', amount: 4 })).status).toBe(200);

    await page.getByLabel('Find a license').fill(key);
    await page.getByRole('button', { name: 'Find', exact: true }).click();
    await page.getByRole('heading', { name: `License ${key}` }).waitFor();
    const exports = page.locator('[data-counter="exports"]');
    await exports.getByText('12 of 50 + 5 overage this month').waitFor();
    expect(await exports.locator('meter').getAttribute('value')).toBe('12');
    await page.locator('[data-counter="api"]').getByText('4 of 10 this license').waitFor();

    await exports.getByRole('button', { name: 'Reset' }).click();
    await page.getByText('exports reset to 0.').waitFor();
    const usage = (await api(session.service, '/license/get', { license_key: key })).body.data.usage;
    expect(usage.map(({ counter, used }: { counter: string; used: number }) => [counter, used])).toEqual([['api', 4], ['exports', 0]]);

    const features = page.getByRole('form', { name: 'Features' });
    await features.getByLabel("This license's own features").fill('beta, export.pdf');
    await features.getByRole('button', { name: 'Save features' }).click();
    await page.getByText('Features saved.').waitFor();
    // The notice comes as the license is read again: wait for the record as read after the save.
    await features.locator('[data-field="effective_features"]', { hasText: 'beta, export.pdf, reports' }).waitFor();
    expect((await api(session.service, '/license/get', { license_key: key })).body.data).toMatchObject({ features: ['beta', 'export.pdf'], effective_features: ['beta', 'export.pdf', 'reports'] });
    await expectAccessible(page, 'shows a bar per counter with what /usage counted, resets one');
  }, 60_000);
});
