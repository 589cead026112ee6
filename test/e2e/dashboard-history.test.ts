/// <reference lib="dom" />
import { createHash } from 'node:crypto';
import type { Page } from 'playwright-core';
import { expectAccessible } from '../support/axe';
import { api, openDashboard, serviceAndBrowser, type StartedService, tab } from '../support/browser';

/**
 * The Audit screen (`#/apps/<app_id>/audit`, its filters in the fragment's query),
 * the history on a license's page, and managing applications: create one from the
 * picker, rename, pause, resume, rotate its signing key.
 */

const session = serviceAndBrowser();

const keyActor = (service: StartedService) => `API key ${createHash('sha256').update(service.apiKey).digest('hex').slice(0, 8)}…`;

/** `npm start` polls the table's stream every 500 ms: an event is listed once the consumer wrote it. */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const value = await read();
    if (done(value) || attempt >= 40) return value;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function licenseOfNewSubscription(service: StartedService, appId: string, name: string) {
  const subscription = await api(service, '/subscription/create', { app_id: appId, name, level: 1, single_key_per_hwid: false });
  const created = await api<{ key: string }>(service, '/license/create', { app_id: appId, subscription_id: subscription.body.data.subscription_id, duration_unit: 'days', duration_value: 30 });
  return created.body.data.key;
}

const events = (page: Page) => page.locator('ol.events > li');

describe('the Audit screen and license history', () => {
  it('lists changes in words with who made them, filters by type, license, actor and time in the address, and pages', async () => {
    const { service } = session;
    const key = await licenseOfNewSubscription(service, service.appId, 'Audit');
    await api(service, '/license/update-status', { license_key: key, status: 'paused' });
    await api(service, '/license/create-bulk', { app_id: service.appId, subscription_id: (await api(service, '/subscription/get-bulk', { app_id: service.appId })).body.data[0].subscription_id, key_amount: 25, duration_unit: 'days', duration_value: 1 });
    await eventually(
      () => api<unknown[]>(service, '/audit/get-bulk', { app_id: service.appId, type: 'license.created', per_page: 100 }),
      (answer) => answer.body.data.length === 26,
    );
    const { context, page } = await openDashboard(session);
    const base = page.url().replace(/#.*$/, '');

    await tab(page, 'Audit log').click();
    await page.getByRole('heading', { name: 'Audit log' }).waitFor();
    expect(page.url()).toBe(`${base}#/apps/${service.appId}/audit`);
    expect(await page.title()).toMatch(/^Audit log · /);
    await events(page).nth(24).waitFor();
    expect(await events(page).count()).toBe(25);
    await expectAccessible(page, 'audit log');
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByText('Page 2').waitFor();
    const paused = events(page).filter({ hasText: 'License status changed' });
    await paused.waitFor();
    expect(await paused.innerText()).toContain('status: active → paused');
    expect(await paused.innerText()).toContain(`by ${keyActor(service)}`);

    await page.getByLabel('Event type').selectOption('license.status_changed');
    await page.getByRole('button', { name: 'Show events' }).click();
    await page.waitForURL(`${base}#/apps/${service.appId}/audit?type=license.status_changed`);
    await page.getByText('Page 1').waitFor();
    await events(page).first().waitFor();
    expect(await events(page).count()).toBe(1);
    await page.reload();
    await events(page).first().waitFor();
    expect(await events(page).count()).toBe(1);
    expect(await page.getByLabel('Event type').inputValue()).toBe('license.status_changed');

    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.getByLabel('License key').fill(key);
    await page.getByRole('button', { name: 'Show events' }).click();
    await page.waitForURL(/license_key=/);
    await events(page).filter({ hasText: 'License status changed' }).waitFor();
    expect(await events(page).allInnerTexts()).toEqual([expect.stringContaining('License status changed'), expect.stringContaining('License created')]);

    await page.getByLabel('Actor').fill('client');
    await page.getByRole('button', { name: 'Show events' }).click();
    await page.getByText('No event matches these filters.').waitFor();

    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.getByLabel('From (your time)').fill('2099-01-01T00:00');
    await page.getByRole('button', { name: 'Show events' }).click();
    await page.waitForURL(/from=2099-01-01T/);
    await page.getByText('No event matches these filters.').waitFor();

    const failures = page.getByRole('region', { name: 'Failed sign-ins' });
    expect(await failures.innerText()).toContain('counted per UTC day, not recorded one by one');
    await context.close();
  }, 90_000);

  it('shows a license\'s history with before and after in words, and adds the owner\'s change after it is made', async () => {
    const { service } = session;
    const key = await licenseOfNewSubscription(service, service.appId, 'History');
    await api(service, '/license/extend', { license_key: key, extend_seconds: 86400 });
    await eventually(
      () => api<unknown[]>(service, '/audit/get-bulk', { app_id: service.appId, license_key: key }),
      (answer) => answer.body.data.length === 2,
    );
    const { context, page } = await openDashboard(session);
    const base = page.url().replace(/#.*$/, '');
    await page.goto(`${base}#/apps/${service.appId}/licenses/${key}`);
    const history = page.getByRole('region', { name: 'History', exact: true });
    await history.getByText('License extended').waitFor();
    expect(await history.innerText()).toMatch(/initial duration: 30 days → 31 days/);
    await expectAccessible(page, 'license detail with history');

    await page.getByRole('button', { name: 'Pause', exact: true }).click();
    await history.getByText('License status changed').waitFor({ timeout: 15_000 });
    expect(await history.locator('ol.events > li').first().innerText()).toContain('status: active → paused');

    await history.getByRole('link', { name: 'In the audit log' }).click();
    await page.waitForURL(`${base}#/apps/${service.appId}/audit?license_key=${key}`);
    await events(page).filter({ hasText: 'License status changed' }).waitFor();
    await context.close();
  }, 60_000);
});

describe('managing applications', () => {
  it('creates an application from the picker, renames, pauses and resumes it, rotates its key, and copies its app ID', async () => {
    const { service } = session;
    const { context, page } = await openDashboard(session);
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    const base = page.url().replace(/#.*$/, '');

    await page.getByRole('link', { name: 'Applications' }).click();
    await page.getByRole('heading', { name: 'Applications' }).waitFor();
    await expectAccessible(page, 'application picker');
    await page.getByRole('button', { name: /^Copy app ID of / }).first().click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(service.appId);
    await page.getByLabel('Name').fill('Second app');
    await page.getByRole('button', { name: 'Create application' }).click();
    await page.getByRole('heading', { name: 'Signing key & settings' }).waitFor();
    const apps = (await api<{ app_id: string; name: string; status: string }[]>(service, '/app/list', {})).body.data;
    const second = apps.find((app) => app.name === 'Second app')!;
    expect(apps).toHaveLength(2);
    expect(page.url()).toBe(`${base}#/apps/${second.app_id}/settings`);
    const admin = page.getByRole('region', { name: 'Application', exact: true });
    expect(await admin.locator('[data-field="app_id"]').innerText()).toBe(second.app_id);
    await expectAccessible(page, 'settings with the application');

    await admin.getByLabel('Name', { exact: true }).fill('Renamed app');
    await admin.getByRole('button', { name: 'Rename' }).click();
    await admin.getByText('Renamed to “Renamed app”.').waitFor();
    expect(await page.locator('header strong').innerText()).toBe('Renamed app');

    await admin.getByRole('button', { name: 'Pause application' }).click();
    const dialog = page.getByRole('dialog');
    expect(await dialog.innerText()).toContain('APPLICATION_NOT_ACTIVE');
    await dialog.getByRole('button', { name: 'Pause application' }).click();
    await admin.getByText('Application paused').waitFor();
    expect((await api<{ app_id: string; status: string }[]>(service, '/app/list', {})).body.data.find((app) => app.app_id === second.app_id)?.status).toBe('inactive');
    await admin.getByRole('button', { name: 'Resume application' }).click();
    await admin.getByText('Application resumed').waitFor();
    expect((await api<{ app_id: string; name: string; status: string }[]>(service, '/app/list', {})).body.data.find((app) => app.app_id === second.app_id)).toMatchObject({ name: 'Renamed app', status: 'active' });

    const keyId = page.locator('[data-field="key_id"]');
    const before = await keyId.innerText();
    await page.getByRole('button', { name: 'Rotate signing key…' }).click();
    expect(await dialog.innerText()).toContain('programs that pin the old public key will reject them');
    await expectAccessible(page, 'rotation confirmation');
    await dialog.getByRole('button', { name: 'Rotate signing key' }).click();
    await page.getByText(/^Signing key rotated/).waitFor();
    const after = await keyId.innerText();
    expect(after).not.toBe(before);
    expect((await api<{ key_id: string }>(service, '/app/signing-key', { app_id: second.app_id })).body.data.key_id).toBe(after);

    await eventually(
      () => api<unknown[]>(service, '/audit/get-bulk', { app_id: second.app_id, type: 'app.signing_key_rotated' }),
      (answer) => answer.body.data.length === 1,
    );
    await tab(page, 'Audit log').click();
    await events(page).filter({ hasText: 'Signing key rotated' }).waitFor();
    expect(await events(page).allInnerTexts()).toEqual(
      expect.arrayContaining([expect.stringContaining('status: inactive → active'), expect.stringContaining('name: Second app → Renamed app')]),
    );
    await context.close();
  }, 90_000);
});
