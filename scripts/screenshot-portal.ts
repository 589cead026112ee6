import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { LicenseClient } from '../clients/app-typescript/src/index';
import { api, emailTo, foundByEmail, launchChromium, startService } from '../test/support/browser';

/**
 * `npm run screenshot:portal`: the customers' portal, from a fresh `npm start` with a
 * customer of the demo application, at 1366x900 (docs/portal-<screen>.png) and on a
 * 390x844 phone (docs/portal-<screen>-phone.png), in the same headless Chromium as
 * the browser tests: the activation page with its file made, sign-in, the code step,
 * the licenses (the Pro one bought through Stripe, so it offers billing) and a device's
 * release asked for.
 */
const docs = join(import.meta.dirname, '..', 'docs');
const viewports = [
  { suffix: '', viewport: { width: 1366, height: 900 } },
  { suffix: '-phone', viewport: { width: 390, height: 844 } },
];

const service = await startService();
const app_id = service.appId;

async function shoot(page: Page, name: string, suffix: string) {
  await page.waitForLoadState('networkidle');
  await page.waitForTimeout(300);
  const path = join(docs, `portal-${name}${suffix}.png`);
  await page.screenshot({ path, fullPage: true });
  process.stdout.write(`wrote ${path}\n`);
}

const browser = await launchChromium();
try {
  await api(service, '/app/update', { app_id, name: 'Acme PhotoLab' });
  await api(service, '/app/settings', { app_id, portal: { enabled: true, sender_name: 'Acme Software', support_url: 'https://support.example.com/' } });
  // Connected to Stripe, so a license whose buyer Stripe knows offers billing; nothing here calls Stripe.
  await api(service, '/integration/stripe/set', { app_id, webhook_secret: 'whsec_screenshot0123456789abcdef', api_key: 'rk_test_screenshot0123456789abcdef', prices: {} });
  const pro = (await api(service, '/subscription/create', { app_id, name: 'Pro', level: 2, features: ['raw-import', 'batch-export'] })).body.data.subscription_id;
  const basic = (await api(service, '/subscription/create', { app_id, name: 'Basic', level: 1 })).body.data.subscription_id;
  const email = 'jamie@example.com';
  const pc = (await api(service, '/license/create', {
    app_id,
    subscription_id: pro,
    duration_unit: 'years',
    duration_value: 1,
    email,
    hwid_lock: true,
    max_devices: 5,
    hwid_reset_interval: 7 * 86400,
    usage_limits: { exports: { limit: 500, period: 'month' } },
    metadata: { stripe_customer: 'cus_ScreenshotJamie' },
  })).body.data.key as string;
  await api(service, '/license/create', { app_id, subscription_id: basic, duration_unit: 'months', duration_value: 1, email, hwid_lock: true });
  for (const hwid of ['STUDIO-WORKSTATION', 'JAMIE-LAPTOP']) {
    await fetch(`${service.url}/auth`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ app_id, license: pc, hwid }) });
  }
  await foundByEmail(service, email, 2);
  const signingKey = (await api(service, '/app/signing-key', { app_id })).body.data.jwk;
  const program = new LicenseClient({ url: service.url, appId: app_id, publicKey: signingKey, stateDir: mkdtempSync(join(tmpdir(), 'portal-screenshot-')) });
  mkdirSync(docs, { recursive: true });
  for (const stale of readdirSync(docs).filter((file) => /^portal-.*\.png$/.test(file))) rmSync(join(docs, stale));

  let sent = 0;
  for (const { suffix, viewport } of viewports) {
    const page = await browser.newPage({ viewport, colorScheme: 'light', acceptDownloads: true });
    page.setDefaultTimeout(15_000);
    const { link } = await program.activationRequest({ license: pc, hwid: `LAB-PC${suffix.toUpperCase()}`, portalUrl: `${service.url}/portal/` });
    await page.goto(link!);
    await page.getByRole('button', { name: 'Make license file' }).click();
    await page.getByRole('button', { name: 'Download license.lic' }).waitFor();
    await shoot(page, 'activate', suffix);

    await page.goto(`${service.url}/portal/?app=${app_id}`);
    await page.getByLabel('Email address').waitFor();
    await shoot(page, 'sign-in', suffix);
    await page.getByLabel('Email address').fill(email);
    await page.getByRole('button', { name: 'Email me a code' }).click();
    await page.getByLabel('Code', { exact: true }).waitFor();
    sent += 1;
    const message = await emailTo(service, email, sent);
    await page.getByLabel('Code', { exact: true }).fill(/#code=(\d{6})/.exec(message.text)![1]!);
    await shoot(page, 'code', suffix);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('region', { name: pc }).getByText('JAMIE-LAPTOP').waitFor();
    await shoot(page, 'licenses', suffix);
    await page.getByRole('region', { name: pc }).getByRole('button', { name: 'Release JAMIE-LAPTOP' }).click();
    await shoot(page, 'release', suffix);
    await page.getByRole('button', { name: 'Sign out' }).click();

    await page.close();
  }
} finally {
  await browser.close();
  await service.stop();
}
