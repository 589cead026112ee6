import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { api, launchChromium, startService } from '../test/support/browser';

/**
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
  await page.goto(`${service.url}/dashboard/#key=${service.apiKey}`);
  await page.getByRole('heading', { name: 'Licenses' }).waitFor();
  await page.locator('tbody tr').nth(made.length - 1).waitFor();
  await page.getByLabel(`Select ${made[2]!.key}`).check();
  await page.getByLabel(`Select ${made[3]!.key}`).check();
  mkdirSync(join(out, '..'), { recursive: true });
  await page.screenshot({ path: out });
  process.stdout.write(`wrote ${out}\n`);

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
    await stripePage.goto(`${service.url}/dashboard/#key=${service.apiKey}`);
    await stripePage.getByRole('heading', { name: 'Licenses' }).waitFor();
    await stripePage.getByRole('button', { name: 'Stripe' }).click();
    await stripePage.getByText('Leave both fields empty to keep the stored secrets.').waitFor();
    await stripePage.screenshot({ path: shot.file, fullPage: true });
    process.stdout.write(`wrote ${shot.file}\n`);
  }
} finally {
  await browser.close();
  await service.stop();
}
