/// <reference lib="dom" />
import type { BrowserContext, Page } from 'playwright-core';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expectAccessible } from '../support/axe';
import { api, openDashboard, serviceAndBrowser, tab } from '../support/browser';

/**
 * The dashboard's screens for the routes added after its first version:
 * statistics, the signing key and settings, and seats. Each result on screen
 * is compared with what the management API answers.
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

async function newLicenses(amount: number): Promise<string[]> {
  const subscription = await api<{ subscription_id: string }>(session.service, '/subscription/create', { app_id: session.service.appId, name: `S${Date.now()}`, level: 1 });
  const created = await api<{ license_key: string }[] | { license_keys: string[] }>(session.service, '/license/create-bulk', {
    app_id: session.service.appId,
    subscription_id: subscription.body.data.subscription_id,
    key_amount: amount,
    duration_unit: 'days',
    duration_value: 30,
  });
  expect(created.status).toBe(200);
  const listed = await api<{ key: string }[]>(session.service, '/license/get-bulk', { app_id: session.service.appId, per_page: 100 });
  return listed.body.data.map((license) => license.key);
}

async function until(check: () => Promise<boolean>, what: string) {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 100));
  }
}

interface Stats {
  totals: Record<'licenses' | 'active' | 'paused' | 'expired' | 'unused', number>;
  days: { date: string; created: number; activated: number; logins: number; auth_failures: number }[];
}

describe('the dashboard screens for stats, signing key and seats', () => {
  it('shows the totals and daily numbers /app/stats answers, for 7, 30 and 90 days', async () => {
    const keys = await newLicenses(3);
    await api(session.service, '/license/update-status', { license_key: keys[0], status: 'paused' });
    // The counters are written by the event consumer off the request path: wait until the API counts the 3 new licenses and the pause.
    let stats!: Stats;
    await until(async () => {
      stats = (await api<Stats>(session.service, '/app/stats', { app_id: session.service.appId, days: 7 })).body.data;
      return stats.days.reduce((sum, day) => sum + day.created, 0) === 3 && stats.totals.paused === 1;
    }, '/app/stats to count the new licenses and the pause');

    await tab(page, 'Statistics').click();
    await page.getByRole('heading', { name: 'Statistics' }).waitFor();
    await page.getByLabel('Days').selectOption('7');
    await page.getByText('Daily numbers as a table').click();
    const table = page.getByRole('table', { name: 'Daily numbers' });
    await until(async () => (await table.locator('tbody tr').count()) === 7, 'a row for each of 7 days');

    for (const [name, value] of Object.entries(stats.totals)) {
      expect(await page.locator(`[data-total="${name}"]`).textContent()).toBe(String(value));
    }
    expect(stats.totals).toMatchObject({ licenses: 3, paused: 1 });
    const rows = await table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => Array.from(tr.children).map((cell) => cell.textContent)));
    expect(rows).toEqual(stats.days.map((day) => [day.date, String(day.created), String(day.activated), String(day.logins), String(day.auth_failures)]));
    expect(await page.locator('.chart canvas').count()).toBe(1);

    await page.getByLabel('Days').selectOption('90');
    await until(async () => (await table.locator('tbody tr').count()) === 90, 'a row for each of 90 days');
    await expectAccessible(page, 'shows the totals and daily numbers /app/stats answers, for 7');
  }, 60_000);

  it('shows the signing key /app/signing-key answers, copies it, and edits the offline token lifetime', async () => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    const signing = (await api<{ key_id: string; public_key_pem: string }>(session.service, '/app/signing-key', { app_id: session.service.appId })).body.data;

    await tab(page, 'Signing key & settings').click();
    const key = page.getByRole('region', { name: 'Signing public key' });
    await key.waitFor();
    expect(await key.locator('[data-field="key_id"]').textContent()).toBe(signing.key_id);
    expect((await key.locator('[data-field="public_key_pem"]').textContent())?.trim()).toBe(signing.public_key_pem.trim());
    await key.getByRole('button', { name: 'Copy PEM' }).click();
    await page.getByText('PEM copied.').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(signing.public_key_pem);

    const form = page.getByRole('form', { name: 'Offline tokens' });
    await form.getByLabel('Offline token lifetime (seconds)').fill('172800');
    await form.getByRole('button', { name: 'Save lifetime' }).click();
    await page.getByText('Offline token lifetime set to 2 days.').waitFor();
    expect((await api(session.service, '/app/settings', { app_id: session.service.appId })).body.data.offline_token_ttl).toBe(172800);

    const borrowing = page.getByRole('form', { name: 'Borrowing floating seats' });
    await borrowing.getByLabel('Longest borrow (seconds)').fill('86400');
    await borrowing.getByRole('button', { name: 'Save longest borrow' }).click();
    await page.getByText('Longest borrow set to 1 day.').waitFor();
    expect((await api(session.service, '/app/settings', { app_id: session.service.appId })).body.data.max_borrow_seconds).toBe(86400);
    await expectAccessible(page, 'shows the signing key /app/signing-key answers, copies it, a');
  }, 60_000);

  it('edits the reset rules new licenses get, which /app/settings then answers and a new license has', async () => {
    await tab(page, 'Signing key & settings').click();
    const form = page.getByRole('form', { name: 'HWID resets of new licenses' });
    const allowed = form.getByLabel('Allow self-service HWID resets');
    const interval = form.getByLabel('Seconds between resets');
    expect([await allowed.isChecked(), await interval.inputValue()]).toEqual([true, '0']);

    await interval.fill('172800');
    await form.getByRole('button', { name: 'Save reset rules' }).click();
    await page.getByText('New licenses allow a self-service HWID reset every 2 days.').waitFor();
    await allowed.uncheck();
    await form.getByRole('button', { name: 'Save reset rules' }).click();
    await page.getByText('New licenses allow no self-service HWID reset.').waitFor();

    const settings = (await api(session.service, '/app/settings', { app_id: session.service.appId })).body.data;
    expect(settings).toMatchObject({ default_hwid_reset_allowed: false, default_hwid_reset_interval: 172800 });
    const [key] = await newLicenses(1);
    const license = (await api(session.service, '/license/get', { license_key: key })).body.data;
    expect(license).toMatchObject({ hwid_reset_allowed: false, hwid_reset_interval: 172800 });
    await expectAccessible(page, 'edits the reset rules new licenses get, which /app/settings ');
  }, 60_000);

  it('sets a license to 3 seats and removes a bound device after confirming', async () => {
    const [key] = await newLicenses(1);
    await api(session.service, '/hwid/edit', { license_key: key, hwid: 'SEAT-DEVICE-1' });

    await page.getByLabel('Find a license').fill(key!);
    await page.getByRole('button', { name: 'Find', exact: true }).click();
    await page.getByRole('heading', { name: `License ${key}` }).waitFor();
    const seats = page.getByRole('form', { name: 'Seats' });
    await seats.getByText('1 of 1 device bound.').waitFor();
    await seats.getByLabel('Seats (devices at once)').fill('3');
    await seats.getByRole('button', { name: 'Set seats' }).click();
    await page.getByText('Seats set to 3.').waitFor();
    const seated = (await api(session.service, '/license/get', { license_key: key })).body.data;
    expect(seated).toMatchObject({ max_devices: 3, hwids: ['SEAT-DEVICE-1'] });
    await seats.getByText('1 of 3 devices bound.').waitFor();

    await seats.getByRole('button', { name: 'Remove device SEAT-DEVICE-1' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove device' }).click();
    await page.getByText('Device SEAT-DEVICE-1 removed.').waitFor();
    expect((await api(session.service, '/license/get', { license_key: key })).body.data).toMatchObject({ max_devices: 3, hwids: [] });
    await expectAccessible(page, 'sets a license to 3 seats and removes a bound device after c');
  }, 60_000);

  it('shows a floating license\'s leases with time left and a borrowed mark, and releases one after confirming', async () => {
    const subscription = await api<{ subscription_id: string }>(session.service, '/subscription/create', { app_id: session.service.appId, name: `F${Date.now()}`, level: 1 });
    const created = await api<{ key: string }>(session.service, '/license/create', {
      app_id: session.service.appId,
      subscription_id: subscription.body.data.subscription_id,
      duration_unit: 'days',
      duration_value: 30,
      hwid_lock: true,
      max_devices: 3,
      lease_seconds: 3600,
    });
    const key = created.body.data.key;
    expect((await api(session.service, '/auth', { app_id: session.service.appId, license: key, hwid: 'DESK-1' })).status).toBe(200);
    expect((await api(session.service, '/auth', { app_id: session.service.appId, license: key, hwid: 'LAPTOP-2', borrow_seconds: 43200 })).status).toBe(200);

    await page.getByLabel('Find a license').fill(key);
    await page.getByRole('button', { name: 'Find', exact: true }).click();
    await page.getByRole('heading', { name: `License ${key}` }).waitFor();
    const floating = page.getByRole('form', { name: 'Floating seats' });
    await floating.getByText('2 of 3 seats leased.').waitFor();
    const leases = floating.getByRole('list', { name: 'Leases' }).locator('li');
    expect(await leases.count()).toBe(2);
    expect(await leases.nth(0).textContent()).toMatch(/^DESK-1(59 min \d+ s|1 h 0 min) left/);
    expect(await leases.nth(1).textContent()).toMatch(/^LAPTOP-2(11 h 59 min|12 h 0 min) leftborrowed/);
    await page.screenshot({ path: process.env.FLOATING_SCREENSHOT ?? join(tmpdir(), 'dashboard-floating-seats.png'), fullPage: true });

    await floating.getByRole('button', { name: 'Release seat of LAPTOP-2' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Release seat' }).click();
    await page.getByText('Seat of LAPTOP-2 released.').waitFor();
    expect((await api(session.service, '/license/get', { license_key: key })).body.data).toMatchObject({ hwids: ['DESK-1'], leases: [{ hwid: 'DESK-1', borrowed: false }] });
    await floating.getByText('1 of 3 seats leased.').waitFor();
    await expectAccessible(page, 'shows a floating license\\’s leases with time left and a borr');
  }, 60_000);
});
