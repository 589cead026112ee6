/// <reference lib="dom" />
import { expectAccessible } from '../support/axe';
import { api, newLicense, openDashboard, serviceAndBrowser, signIn, tab } from '../support/browser';

/**
 * The API keys screen (admins only) and a dashboard that shows a key only what
 * its role may do (docs/api-keys.md#the-dashboard).
 */

const session = serviceAndBrowser();

/** A fresh browser context signed in with `apiKey`, on the Licenses screen; `base` is the dashboard's address. */
async function signedInWith(apiKey: string) {
  const context = await session.browser.newContext();
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  const base = `${session.service.url.replace('127.0.0.1', 'localhost')}/dashboard/`;
  await signIn(page, base, apiKey);
  await page.getByRole('heading', { name: 'Licenses' }).waitFor();
  return { context, page, base };
}

describe('the API keys screen', () => {
  it('makes a key shown once with a copy button, lists it without the key, and revokes it after a confirmation', async () => {
    const { appId } = session.service;
    const { context, page } = await openDashboard(session);
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await tab(page, 'API keys').click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    expect(page.url()).toMatch(new RegExp(`#/apps/${appId}/keys$`));

    const form = page.getByRole('form', { name: 'Create an API key' });
    await form.getByLabel('Name').fill('Support desk');
    await form.getByLabel('Role').selectOption('support');
    await form.getByRole('button', { name: 'Create key' }).click();
    const shown = page.locator('[data-field="api_key"]');
    await shown.waitFor();
    const apiKey = (await shown.textContent())!;
    expect(apiKey).toMatch(/^lsk_[A-Za-z0-9]{43}$/);
    await expectAccessible(page, 'API keys with a new key shown once');
    await page.getByRole('button', { name: 'Copy key' }).click();
    await page.getByText('API key copied.').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(apiKey);

    const row = page.getByRole('row').filter({ hasText: 'Support desk' });
    await row.waitFor();
    expect(await row.textContent()).toContain(`${apiKey.slice(0, 8)}…`);
    expect(await row.textContent()).toContain('support');
    await page.getByRole('button', { name: 'I have stored it' }).click();
    expect(await page.content()).not.toContain(apiKey);
    await page.reload();
    await row.waitFor();
    expect(await page.content()).not.toContain(apiKey);

    await row.getByRole('button', { name: 'Revoke Support desk' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
    await page.getByText('Key revoked.').waitFor();
    await row.getByText('revoked').waitFor();
    const refused = await fetch(`${session.service.url}/app/list`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, body: '{}' });
    expect(refused.status).toBe(401);
    await context.close();
  }, 60_000);
});

describe('a read_only key in the dashboard', () => {
  it('sees its applications and licenses but no button or form that writes, and no API keys screen', async () => {
    const { appId } = session.service;
    const key = await newLicense(session.service);
    const made = await api<{ api_key: string }>(session.service, '/apikey/create', { role: 'read_only', name: 'Reports' });
    const { context, page, base } = await signedInWith(made.body.data.api_key);
    const licenseLink = page.getByRole('link', { name: key });
    await licenseLink.waitFor();

    const writes = ['Create licenses', 'Lock HWID', 'Unlock HWID', 'Create subscription', 'Pause', 'Activate', 'Extend', 'Delete…', 'Save reset rules', 'Add to blacklist', 'Add endpoint', 'Revoke', 'Enable', 'Disable', 'Rotate', 'Redeliver', 'Add price', 'Remove', 'Save connection', 'Connect to Stripe', 'Disconnect', 'Save lifetime', 'Save longest borrow', 'Save email'];
    const visibleWrites = async () => {
      const names = await page.getByRole('button').allTextContents();
      return names.map((name) => name.trim()).filter((name) => writes.some((write) => name.startsWith(write)));
    };
    expect(await visibleWrites()).toEqual([]);
    expect(await tab(page, 'API keys').count()).toBe(0);
    await expectAccessible(page, 'licenses for a read_only key');

    await licenseLink.click();
    await page.getByRole('heading', { name: `License ${key}` }).waitFor();
    expect(await visibleWrites()).toEqual([]);
    expect(await page.locator('main form').count()).toBe(0);

    for (const screen of ['Subscriptions', 'Blacklists', 'Webhooks', 'Signing key & settings', 'Audit log', 'Stripe']) {
      await tab(page, screen).click();
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      expect({ screen, writes: await visibleWrites() }).toEqual({ screen, writes: [] });
    }

    await page.goto(`${base}#/apps/${appId}/keys`);
    await page.getByRole('heading', { name: 'Not found' }).waitFor();
    await context.close();
  }, 60_000);
});

describe('an admin key limited to one application in the dashboard', () => {
  it('has no form to create an application, which the service would refuse it, and keeps its API keys screen', async () => {
    const { appId } = session.service;
    const made = await api<{ api_key: string }>(session.service, '/apikey/create', { role: 'admin', name: 'One app', apps: [appId] });
    const refused = await fetch(`${session.service.url}/app/create`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': made.body.data.api_key },
      body: JSON.stringify({ name: 'Beyond' }),
    });
    expect({ status: refused.status, body: await refused.json() }).toEqual({ status: 403, body: { error: 'Access denied', error_code: 'ACCESS_DENIED' } });
    const { context, page, base } = await signedInWith(made.body.data.api_key);
    await tab(page, 'API keys').waitFor();
    await page.goto(`${base}#/`);
    await page.getByRole('heading', { name: 'Applications' }).waitFor();
    await page.locator(`[data-field="app_id"]`).filter({ hasText: appId }).waitFor();
    expect(await page.getByRole('form', { name: 'Create an application' }).count()).toBe(0);
    await expectAccessible(page, 'the app picker for a key limited to one application');
    await context.close();
  }, 60_000);
});
