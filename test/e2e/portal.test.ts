/// <reference lib="dom" />
import { readFileSync } from 'node:fs';
import { decodeJwt } from 'jose';
import type { Page } from 'playwright-core';
import { expectAccessible } from '../support/axe';
import { api, desktopAndPhone, emailTo, expectNoHorizontalScroll, foundByEmail, serviceAndBrowser } from '../support/browser';
import { timeFor } from '../support/time';

/**
 * The customers' portal against `npm start`, as a customer uses it: sign-in by the
 * code of the email the outbox holds (typed after a wrong one, or by opening the
 * emailed link), their licenses listed with their devices and usage and no one
 * else's, a device released, a license file made from a pasted activation request and
 * downloaded, and sign-out, which ends the session on the service, at 1366 and 390
 * pixels, axe-core clean at every step.
 */
const session = serviceAndBrowser();


async function checked(page: Page, screen: string, width: number) {
  await expectAccessible(page, screen);
  if (width < 500) await expectNoHorizontalScroll(page, screen);
}

interface Customer {
  email: string;
  keys: string[];
  otherKey: string;
}

/** A customer of the demo application with two licenses (one on two devices), and someone else's license beside them. */
async function customer(name: string): Promise<Customer> {
  const { appId } = session.service;
  const email = `${name}-${Date.now()}@example.com`;
  const subscription = await api<{ subscription_id: string }>(session.service, '/subscription/create', { app_id: appId, name: 'Pro', level: 1, features: ['export'] });
  const create = async (fields: object) =>
    (
      await api<{ key: string }>(session.service, '/license/create', {
        app_id: appId,
        subscription_id: subscription.body.data.subscription_id,
        duration_unit: 'days',
        duration_value: 365,
        ...fields,
      })
    ).body.data.key;
  const keys = [
    await create({ email, hwid_lock: true, max_devices: 2, hwid_reset_interval: 86400, usage_limits: { exports: { limit: 100, period: 'month' } } }),
    await create({ email: email.toUpperCase(), hwid_lock: true }),
  ];
  const otherKey = await create({ email: `someone-else-${Date.now()}@example.com` });
  for (const hwid of ['HOME-PC', 'LAPTOP']) {
    const answer = await fetch(`${session.service.url}/auth`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ app_id: appId, license: keys[0], hwid }) });
    expect(((await answer.json()) as { success: boolean }).success).toBe(true);
  }
  await foundByEmail(session.service, email, 2);
  return { email, keys, otherKey };
}

beforeAll(async () => {
  const settings = await api(session.service, '/app/settings', {
    app_id: session.service.appId,
    portal: { enabled: true, sender_name: 'Acme Tools', support_url: 'https://support.example.com/' },
  });
  expect(settings.status).toBe(200);
}, 30_000);

describe('the customers\' portal', () => {
  it.each(desktopAndPhone)('signs in by emailed code, lists the customer\'s licenses and signs out (%s)', async (name, viewport) => {
    const { email, keys, otherKey } = await customer(name);
    const context = await session.browser.newContext({ viewport });
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    const portalUrl = `${session.service.url}/portal/?app=${session.service.appId}`;

    await page.goto(portalUrl);
    await page.getByText('Acme Tools').first().waitFor();
    await page.getByRole('link', { name: 'Contact support' }).waitFor();
    await checked(page, `sign-in (${name})`, viewport.width);
    await page.getByLabel('Email address').fill(email);
    await page.getByRole('button', { name: 'Email me a code' }).click();
    await page.getByText('a 6-digit code is on its way there').waitFor();
    await checked(page, `code step (${name})`, viewport.width);
    const message = await emailTo(session.service, email, 1);
    const link = /(http:\/\/\S+#code=(\d{6}))/.exec(message.text);
    expect(link?.[1]).toMatch(new RegExp(`^${session.service.url}/portal/\\?app=${session.service.appId}#code=\\d{6}$`));
    if (name === 'desktop') {
      await page.getByLabel('Code', { exact: true }).fill('000000' === link![2] ? '111111' : '000000');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('alert').waitFor();
      await page.getByLabel('Code', { exact: true }).fill(link![2]!);
      await page.getByRole('button', { name: 'Sign in' }).click();
    } else {
      // The emailed link, opened in the tab that asked for it (only its hash changes): no typing at all.
      await page.goto(link![1]!);
    }

    await page.getByRole('heading', { name: 'Your licenses' }).waitFor();
    expect(page.url()).not.toContain('code=');
    for (const key of keys) await page.getByRole('region', { name: key }).waitFor();
    expect(await page.getByText(otherKey).count()).toBe(0);
    const first = page.getByRole('region', { name: keys[0] });
    await first.getByText('HOME-PC').waitFor();
    await first.getByText('LAPTOP').waitFor();
    await first.getByText('exports: 0 of 100 this month').waitFor();
    await checked(page, `licenses (${name})`, viewport.width);

    // Both devices may be released now (the license's reset interval has not begun): each offers it.
    await first.getByRole('button', { name: 'Release LAPTOP' }).waitFor();
    await first.getByRole('button', { name: 'Release HOME-PC' }).waitFor();
    await page.getByRole('region', { name: keys[1] }).getByText('No device uses this license now.').waitFor();

    // Releasing a device, confirmed first: the service frees it, and with the reset interval begun no device offers a release.
    await first.getByRole('button', { name: 'Release LAPTOP' }).click();
    const confirm = first.getByRole('group', { name: 'Release LAPTOP?' });
    await confirm.waitFor();
    await checked(page, `release confirmation (${name})`, viewport.width);
    await confirm.getByRole('button', { name: 'Release LAPTOP' }).click();
    await page.getByText(`LAPTOP was released from ${keys[0]}.`).waitFor();
    await first.getByText('LAPTOP', { exact: true }).waitFor({ state: 'detached' });
    await first.getByText('HOME-PC').waitFor();
    expect(await first.getByRole('button', { name: 'Release HOME-PC' }).count()).toBe(0);
    await checked(page, `device released (${name})`, viewport.width);

    // A license file for an offline computer: its activation request pasted, the signed file made for it and downloaded.
    const second = page.getByRole('region', { name: keys[1] });
    await second.getByRole('button', { name: 'License file for an offline computer' }).click();
    const request = `lfr1.${Buffer.from(JSON.stringify({ app_id: session.service.appId, license: keys[1], hwid: 'CABIN-PC', nonce: `cabin-${name}-0001` })).toString('base64url')}`;
    await second.getByLabel('Activation request').fill(request);
    await second.getByRole('button', { name: 'Make license file' }).click();
    await second.getByText('License file made for CABIN-PC: download it and copy it to that computer.').waitFor();
    await checked(page, `license file made (${name})`, viewport.width);
    const [download] = await Promise.all([page.waitForEvent('download'), second.getByRole('button', { name: 'Download license.lic' }).click()]);
    expect(download.suggestedFilename()).toBe('license.lic');
    expect(decodeJwt(readFileSync((await download.path())!, 'utf8').trim())).toMatchObject({ hwid: 'CABIN-PC', nonce: `cabin-${name}-0001`, air_gapped: true });

    const token = await page.evaluate(() => (JSON.parse(sessionStorage.getItem('portal.session')!) as { token: string }).token);
    const listed = await fetch(`${session.service.url}/portal/licenses`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: '{}' });
    const released = ((await listed.json()) as { data: { key: string; devices: { hwid: string }[] }[] }).data.find((license) => license.key === keys[0]);
    expect(released?.devices.map((device) => device.hwid)).toEqual(['HOME-PC']);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Email address').waitFor();
    expect(await page.evaluate(() => sessionStorage.getItem('portal.session'))).toBeNull();
    const after = await fetch(`${session.service.url}/portal/licenses`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: '{}' });
    expect(after.status).toBe(401);
    await context.close();
  }, timeFor(14, 15_000));
});
