import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { api, launchChromium, signIn, startService } from '../test/support/browser';

/**
 * `npm run screenshot`: every screen of the dashboard, from a fresh `npm start`
 * with sample data, at 1366x900 (docs/dashboard-<screen>.png) and on a 390x844
 * phone (docs/dashboard-<screen>-phone.png), in the same headless Chromium as the
 * browser tests. The tabs are read from the page, so a new screen is taken
 * without a change here; the license detail and the sign-in screen are added.
 */
const docs = join(import.meta.dirname, '..', 'docs');
const viewports = [
  { suffix: '', viewport: { width: 1366, height: 900 } },
  { suffix: '-phone', viewport: { width: 390, height: 844 } },
];

const service = await startService();
const app_id = service.appId;

/** A webhook whose receiver answers 500 to its first delivery and 204 to the retry, so the log shows both. */
async function webhookWithRetry(): Promise<{ url: string; close: () => void; delivered: () => Promise<void> }> {
  let answered = 0;
  const receiver = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(answered++ === 0 ? 500 : 204).end(answered === 1 ? 'database unavailable' : ''));
  });
  await new Promise<void>((listening) => receiver.listen(0, '127.0.0.1', listening));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/licensing`;
  await api(service, '/webhook/create', { app_id, url, events: ['license.created', 'license.deleted'], description: 'CRM' });
  await api(service, '/webhook/create', { app_id, url: 'http://127.0.0.1:9/hooks/mailer', events: ['*'], description: 'Mailer (stopped)' });
  return {
    url,
    close: () => receiver.close(),
    // The retry comes about 5 s after the first attempt.
    delivered: async () => {
      for (let tries = 0; tries < 100 && answered < 2; tries++) await new Promise((resolve) => setTimeout(resolve, 200));
    },
  };
}

/** A device's trial, asked for until the service's few seconds of application cache know trials are on. */
async function startedTrial(hwid: string) {
  for (let tries = 0; tries < 60; tries++) {
    const answer = await fetch(`${service.url}/trial`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ app_id, hwid }) });
    const { message } = (await answer.json()) as { message: string };
    if (message === 'TRIAL_STARTED') return;
    if (message !== 'TRIALS_DISABLED') throw new Error(`/trial answered ${message}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error('trials were still off after 15 s');
}

async function shoot(page: Page, name: string, suffix: string) {
  await page.waitForLoadState('networkidle');
  await page.waitForTimeout(300);
  // A click may have scrolled a table sideways; show each from its first column.
  await page.evaluate(() => document.querySelectorAll('.table-wrap').forEach((wrap) => wrap.scrollTo(0, 0)));
  const path = join(docs, `dashboard-${name}${suffix}.png`);
  await page.screenshot({ path, fullPage: true });
  process.stdout.write(`wrote ${path}\n`);
}

const browser = await launchChromium();
const webhook = await webhookWithRetry();
try {
  const pro = (await api(service, '/subscription/create', { app_id, name: 'Pro', level: 2, single_key_per_hwid: true })).body.data.subscription_id;
  const basic = (await api(service, '/subscription/create', { app_id, name: 'Basic', level: 1, single_key_per_hwid: false })).body.data.subscription_id;
  const made = [
    ...(await api(service, '/license/create-bulk', { app_id, subscription_id: pro, key_amount: 5, duration_unit: 'days', duration_value: 365, hwid_lock: true, tags: ['steam'] })).body.data,
    ...(await api(service, '/license/create-bulk', { app_id, subscription_id: basic, key_amount: 4, duration_unit: 'months', duration_value: 1, hwid_lock: false, tags: ['promo'] })).body.data,
  ] as { key: string }[];
  await api(service, '/license/update-status-bulk', { license_keys: [made[1]!.key, made[6]!.key], status: 'paused' });
  await api(service, '/hwid/edit', { license_key: made[0]!.key, hwid: 'DESKTOP-7F3A9C' });
  await fetch(`${service.url}/auth`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ app_id, license: made[2]!.key, hwid: 'LAPTOP-42' }) });
  await api(service, '/blacklist/create', { app_id, type: 'hwid', value: 'STOLEN-PC-0001', reason: 'chargeback' });
  await api(service, '/blacklist/create', { app_id, type: 'ip', value: '203.0.113.7', reason: 'key sharing' });
  await api(service, '/integration/stripe/set', {
    app_id,
    webhook_secret: 'whsec_screenshotscreenshot0000k7Qp',
    api_key: 'rk_live_screenshotscreenshot0000',
    prices: {
      price_1QaZ2bC3dE4fG5hI: { subscription_id: pro, duration_unit: 'years', duration_value: 1, max_devices: 2 },
      price_1QaZ9xY8wV7uT6sR: { subscription_id: basic, duration_unit: 'months', duration_value: 1 },
    },
  });
  await api(service, '/app/settings', { app_id, trial: { subscription_id: basic, duration_seconds: 14 * 86400 } });
  for (const hwid of ['TRIAL-PC-1', 'TRIAL-PC-2']) await startedTrial(hwid);
  await webhook.delivered();
  mkdirSync(docs, { recursive: true });
  for (const stale of readdirSync(docs).filter((file) => /^dashboard-.*\.png$/.test(file))) rmSync(join(docs, stale));

  for (const { suffix, viewport } of viewports) {
    const page = await browser.newPage({ viewport, colorScheme: 'light' });
    page.setDefaultTimeout(15_000);
    await page.goto(`${service.url}/dashboard/`);
    await page.getByLabel('API key').waitFor();
    await shoot(page, 'sign-in', suffix);
    await signIn(page, `${service.url}/dashboard/`, service.apiKey);
    await page.getByRole('heading', { name: 'Licenses' }).waitFor();
    const tabs = await page.locator('header nav a').evaluateAll((links) => links.map((link) => ({ name: link.textContent ?? '', href: link.getAttribute('href') ?? '' })));
    for (const tab of tabs) {
      const screen = /^#\/apps\/[^/]+\/([^/?]+)/.exec(tab.href)?.[1] ?? tab.name.toLowerCase();
      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: tab.name, exact: true }).click();
      await page.locator('main h1').first().waitFor();
      if (screen === 'licenses') {
        await page.locator('tbody tr').nth(made.length - 1).waitFor();
        await page.getByLabel(`Select ${made[2]!.key}`).check();
        await page.getByLabel(`Select ${made[3]!.key}`).check();
      }
      if (screen === 'webhooks') {
        await page.getByRole('row').filter({ hasText: webhook.url }).getByRole('button', { name: 'Deliveries' }).click();
        await page.getByRole('region', { name: `Deliveries to ${webhook.url}` }).locator('tbody tr').first().waitFor();
      }
      if (screen === 'stripe') await page.getByText('Leave both fields empty to keep the stored secrets.').waitFor();
      await shoot(page, screen, suffix);
    }
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Licenses', exact: true }).click();
    await page.getByRole('link', { name: made[2]!.key }).click();
    await page.getByRole('heading', { name: `License ${made[2]!.key}` }).waitFor();
    await page.locator('[data-field="Status"]').waitFor();
    await shoot(page, 'license', suffix);
    await page.close();
  }
} finally {
  webhook.close();
  await browser.close();
  await service.stop();
}
