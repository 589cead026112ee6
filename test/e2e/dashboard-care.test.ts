/// <reference lib="dom" />
import type { Page } from 'playwright-core';
import { expectAccessible } from '../support/axe';
import { api, openDashboard, serviceAndBrowser, tab } from '../support/browser';
import { timeFor } from '../support/time';

/**
 * Care in every screen: axe-core finds no serious or critical violation on any of
 * them, on a desktop and on a phone; a daily task works with the keyboard alone;
 * problems are said in words next to the action; an outage shows a banner with a
 * retry, and no screen stays stuck once the service answers again.
 */

const session = serviceAndBrowser();

async function seed() {
  const { appId } = session.service;
  const subscription = (await api(session.service, '/subscription/create', { app_id: appId, name: 'Pro', level: 1, single_key_per_hwid: false })).body.data;
  const licenses = (await api<{ key: string }[]>(session.service, '/license/create-bulk', { app_id: appId, subscription_id: subscription.subscription_id, key_amount: 2, duration_unit: 'days', duration_value: 30 })).body.data;
  await api(session.service, '/blacklist/add', { app_id: appId, type: 'hwid', value: 'STOLEN-PC', reason: 'chargeback' });
  return { key: licenses[0]!.key };
}

let seeded: Promise<{ key: string }> | undefined;
const seeding = () => (seeded ??= seed());

/** The screens of the application, by the tab that opens them and the heading it shows. */
const tabs = ['Licenses', 'Subscriptions', 'Blacklists', 'Webhooks', 'Statistics', 'Audit log', 'Stripe', 'Signing key & settings'];

async function noHorizontalScroll(page: Page, screen: string) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect({ screen, overflow }).toEqual({ screen, overflow: 0 });
}

describe('dashboard care', () => {
  it.each([
    ['desktop', { width: 1366, height: 900 }],
    ['phone', { width: 390, height: 844 }],
  ])('has no serious or critical axe-core violation on any screen (%s)', async (_, viewport) => {
    const { key } = await seeding();
    const { context, page } = await openDashboard(session);
    await page.setViewportSize(viewport);
    for (const name of tabs) {
      await tab(page, name).click();
      await page.getByRole('heading', { name, exact: true }).waitFor();
      await page.waitForLoadState('networkidle');
      await expectAccessible(page, name);
      if (viewport.width < 500) await noHorizontalScroll(page, name);
    }
    await tab(page, 'Licenses').click();
    await page.getByRole('link', { name: key }).click();
    await page.getByRole('heading', { name: `License ${key}` }).waitFor();
    await expectAccessible(page, 'license detail');
    if (viewport.width < 500) await noHorizontalScroll(page, 'license detail');
    await page.getByRole('link', { name: '← Licenses' }).click();
    await page.getByRole('button', { name: 'Create licenses' }).click();
    await page.getByRole('heading', { name: 'Create licenses' }).waitFor();
    await expectAccessible(page, 'create licenses');
    if (viewport.width < 500) {
      await page.getByRole('button', { name: 'Cancel' }).click();
      // The expiry column of the licenses table is on screen, not cut off.
      const expires = await page.getByRole('columnheader', { name: 'Expires' }).boundingBox();
      expect(expires!.x + expires!.width).toBeLessThanOrEqual(viewport.width);
    }
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor();
    await expectAccessible(page, 'sign in');
    await context.close();
  // Twelve screens, each opened and checked by axe-core (seconds of work each on a busy machine).
  }, timeFor(12, 15_000));

  it('creates a license and pauses it with the keyboard alone', async () => {
    await seeding();
    const { context, page } = await openDashboard(session);
    const tabTo = async (name: string, role: 'button' | 'link' = 'button') => {
      const target = page.getByRole(role, { name, exact: true });
      for (let presses = 0; presses < 80; presses++) {
        if (await target.evaluate((element) => element === document.activeElement).catch(() => false)) return;
        await page.keyboard.press('Tab');
      }
      throw new Error(`Tab never reached ${name}`);
    };
    await tabTo('Create licenses');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Create licenses' }).waitFor();
    await tabTo('Create');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: '1 new license' }).waitFor();
    const key = (await page.locator('.keys code').first().textContent())!;
    await tabTo('Back to licenses');
    await page.keyboard.press('Enter');
    await tabTo(key, 'link');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: `License ${key}` }).waitFor();
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('H1');
    await tabTo('Pause');
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Activate' }).waitFor();
    expect((await api(session.service, '/license/get', { license_key: key })).body.data.status).toBe('paused');
    await context.close();
  }, 60_000);

  it('says what went wrong in words, beside the action, and clears it on the next one', async () => {
    const { key } = await seeding();
    const { context, page } = await openDashboard(session);
    await page.getByRole('link', { name: key }).click();
    const extend = page.getByRole('form', { name: 'Extend' });
    await extend.getByLabel('By').fill('9007199254740993');
    await extend.getByRole('button', { name: 'Extend' }).click();
    await extend.getByRole('alert').filter({ hasText: 'A license lasts at most 100 years.' }).waitFor();

    await extend.getByLabel('By').fill('1e3');
    await extend.getByLabel('Unit').selectOption('hours');
    await extend.getByRole('button', { name: 'Extend' }).click();
    await extend.getByText('Extended by 1,000 hours.').waitFor();
    expect(await extend.getByRole('alert').count()).toBe(0);

    const status = page.locator('.card').filter({ has: page.getByRole('heading', { name: 'Status' }) });
    await status.getByRole('button', { name: 'Pause' }).click();
    await status.getByText('Paused.').waitFor();
    expect(await extend.getByText('Extended by').count()).toBe(0);

    const created = page.locator('[data-field="Created"] time');
    expect(await created.getAttribute('title')).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \(UTC\)$/);
    expect(await page.locator('[data-field="Duration"]').textContent()).toBe('1,720 hours');
    await expectAccessible(page, 'license detail after actions');
    await context.close();
  }, 60_000);

  it('shows an outage banner with a retry while the API is unreachable, and loads the screen again once it answers', async () => {
    await seeding();
    const { context, page } = await openDashboard(session);
    const apiOrigin = new URL(session.service.url).origin;
    const unreachable = (route: { abort: () => Promise<void> }) => route.abort();
    await context.route(`${apiOrigin}/**`, unreachable);
    await page.reload();
    const banner = page.getByRole('alert').filter({ hasText: 'cannot be reached' });
    await banner.waitFor({ timeout: 20_000 });
    await expectAccessible(page, 'outage banner');

    await context.unroute(`${apiOrigin}/**`, unreachable);
    await banner.getByRole('button', { name: 'Try again' }).click();
    await banner.waitFor({ state: 'detached' });
    await page.getByRole('heading', { name: 'Licenses' }).waitFor();
    await page.locator('tbody tr').first().waitFor();
    expect(await page.getByRole('button', { name: 'Create licenses' }).isEnabled()).toBe(true);
    expect(await page.getByText('create one under Subscriptions first').count()).toBe(0);
    await context.close();
  }, 60_000);

  it('serves a favicon the CSP allows', async () => {
    const response = await fetch(`${session.service.url}/dashboard/favicon.svg`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/svg+xml');
    expect(await response.text()).toMatch(/^<svg /);
  });
});
