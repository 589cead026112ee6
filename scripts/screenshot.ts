import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { api, launchChromium, signIn, startService } from '../test/support/browser';

/**
 * `npm run screenshot`: docs/dashboard-licenses.png and the Webhooks screen's two, the licenses screen of a
 * fresh `npm start` with a few sample licenses, in the same headless Chromium
 * as the browser tests.
 * `npm run screenshot`: docs/dashboard-licenses.png, the licenses screen of a
 * fresh `npm start` with a few sample licenses, and the Stripe screen connected
 * with a price map, wide (docs/dashboard-stripe.png, 1366x900) and on a phone
 * (docs/dashboard-stripe-phone.png, 390x844), in the same headless Chromium as
 * the browser tests.
 */
const out = join(import.meta.dirname, '..', 'docs', 'dashboard-licenses.png');
const stripeShots = [
  { file: join(import.meta.dirname, '..', 'docs', 'dashboard-stripe.png'), viewport: { width: 1366, height: 900 } },
  { file: join(import.meta.dirname, '..', 'docs', 'dashboard-stripe-phone.png'), viewport: { width: 390, height: 844 } },
];
const service = await startService();

/**
 * docs/dashboard-webhooks.png (1366x900) and docs/dashboard-webhooks-mobile.png (390x844): an endpoint on a
 * loopback receiver that answers 500 to its first delivery, with the log after its retry.
 */
async function webhooksScreens(app_id: string) {
  let answered = 0;
  const receiver = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(answered++ === 0 ? 500 : 204).end(answered === 1 ? 'database unavailable' : ''));
  });
  await new Promise<void>((listening) => receiver.listen(0, '127.0.0.1', listening));
  try {
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/licensing`;
    const webhook = (await api(service, '/webhook/create', { app_id, url, events: ['license.created', 'license.deleted'], description: 'CRM' })).body.data;
    await api(service, '/webhook/create', { app_id, url: 'http://127.0.0.1:9/hooks/mailer', events: ['*'], description: 'Mailer (stopped)' });
    const pro = (await api(service, '/subscription/create', { app_id, name: 'Team', level: 3 })).body.data.subscription_id;
    await api(service, '/license/create', { app_id, subscription_id: pro, duration_unit: 'days', duration_value: 30 });
    // The first attempt answered 500, the retry (about 5 s later) 204.
    for (let tries = 0; tries < 100 && answered < 2; tries++) await new Promise((resolve) => setTimeout(resolve, 200));
    for (const [name, viewport] of [['dashboard-webhooks.png', { width: 1366, height: 900 }], ['dashboard-webhooks-mobile.png', { width: 390, height: 844 }]] as const) {
      const page = await browser.newPage({ viewport, colorScheme: 'light' });
      await signIn(page, `${service.url}/dashboard/`, service.apiKey);
      await page.getByRole('heading', { name: 'Licenses' }).waitFor();
      await page.getByRole('link', { name: 'Webhooks', exact: true }).click();
      await page.getByRole('row').filter({ hasText: webhook.url }).getByRole('button', { name: 'Deliveries' }).click();
      await page.getByRole('region', { name: `Deliveries to ${webhook.url}` }).locator('tbody tr').first().waitFor();
      // The click scrolled the endpoints table to its button; show each table from its first column.
      await page.evaluate(() => document.querySelectorAll('.table-wrap').forEach((wrap) => wrap.scrollTo(0, 0)));
      const path = join(out, '..', name);
      await page.screenshot({ path, fullPage: true });
      process.stdout.write(`wrote ${path}\n`);
      await page.close();
    }
  } finally {
    receiver.close();
  }
}
const browser = await launchChromium();
try {
  const app_id = service.appId;
  const pro = (await api(service, '/subscription/create', { app_id, name: 'Pro', level: 2, single_key_per_hwid: true })).body.data.subscription_id;
  const basic = (await api(service, '/subscription/create', { app_id, name: 'Basic', level: 1, single_key_per_hwid: false })).body.data.subscription_id;
  const made = [
    ...(await api(service, '/license/create-bulk', { app_id, subscription_id: pro, key_amount: 5, duration_unit: 'days', duration_value: 365, hwid_lock: true, tags: ['steam'] })).body.data,
    ...(await api(service, '/license/create-bulk', { app_id, subscription_id: basic, key_amount: 4, duration_unit: 'months', duration_value: 1, hwid_lock: false, tags: ['trial'] })).body.data,
  ] as { key: string }[];
  await api(service, '/license/update-status-bulk', { license_keys: [made[1]!.key, made[6]!.key], status: 'paused' });
  await api(service, '/hwid/edit', { license_key: made[0]!.key, hwid: 'DESKTOP-7F3A9C' });

  const page = await browser.newPage({ viewport: { width: 1280, height: 720 }, colorScheme: 'light' });
  await signIn(page, `${service.url}/dashboard/`, service.apiKey);
  await page.getByRole('heading', { name: 'Licenses' }).waitFor();
  await page.locator('tbody tr').nth(made.length - 1).waitFor();
  await page.getByLabel(`Select ${made[2]!.key}`).check();
  await page.getByLabel(`Select ${made[3]!.key}`).check();
  mkdirSync(join(out, '..'), { recursive: true });
  await page.screenshot({ path: out });
  process.stdout.write(`wrote ${out}\n`);
  await webhooksScreens(app_id);

  await api(service, '/integration/stripe/set', {
    app_id,
    webhook_secret: 'whsec_screenshotscreenshot0000k7Qp',
    api_key: 'rk_live_screenshotscreenshot0000',
    prices: {
      price_1QaZ2bC3dE4fG5hI: { subscription_id: pro, duration_unit: 'years', duration_value: 1, max_devices: 2 },
      price_1QaZ9xY8wV7uT6sR: { subscription_id: basic, duration_unit: 'months', duration_value: 1 },
    },
  });
  for (const shot of stripeShots) {
    const stripePage = await browser.newPage({ viewport: shot.viewport, colorScheme: 'light' });
    await signIn(stripePage, `${service.url}/dashboard/`, service.apiKey);
    await stripePage.getByRole('heading', { name: 'Licenses' }).waitFor();
    await stripePage.getByRole('link', { name: 'Stripe', exact: true }).click();
    await stripePage.getByText('Leave both fields empty to keep the stored secrets.').waitFor();
    await stripePage.screenshot({ path: shot.file, fullPage: true });
    process.stdout.write(`wrote ${shot.file}\n`);
  }
} finally {
  await browser.close();
  await service.stop();
}
