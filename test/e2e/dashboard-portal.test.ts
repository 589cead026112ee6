/// <reference lib="dom" />
import type { BrowserContext, Page } from 'playwright-core';
import { expectAccessible } from '../support/axe';
import { api, openDashboard, serviceAndBrowser, tab } from '../support/browser';

/**
 * The customer portal's card on the settings screen against `npm start` (whose outbox always
 * takes mail): turned on with a sender name and support link, what customers may do narrowed,
 * what /app/settings then answers, and turned off again.
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

const settings = async () => (await api(session.service, '/app/settings', { app_id: session.service.appId })).body.data;

describe('the customer portal on the dashboard', () => {
  it('turns the portal on with a sender name, a support link and device releases off, which /app/settings then answers, and off again', async () => {
    await tab(page, 'Signing key & settings').click();
    const form = page.getByRole('form', { name: 'Customer portal' });
    await form.getByText('Off: customers cannot sign in.', { exact: false }).waitFor();
    await form.getByLabel('Sender name (optional)').fill('Acme Tools');
    await form.getByLabel('Support link (https, optional)').fill('https://acme.example/help');
    await form.getByLabel('Customers may release a device').uncheck();
    await form.getByRole('button', { name: 'Turn portal on' }).click();
    await page.getByText('Customer portal on: customers sign in with a code sent to their email.').waitFor();
    expect((await settings()).portal).toEqual({ enabled: true, sender_name: 'Acme Tools', support_url: 'https://acme.example/help', allow_device_release: false, allow_license_files: true });
    await expectAccessible(page, 'turns the customer portal on');
    // Shown again, the card holds what is stored.
    await tab(page, 'Licenses').click();
    await tab(page, 'Signing key & settings').click();
    await form.getByText('On: the people whose licenses carry their email sign in', { exact: false }).waitFor();
    expect(await form.getByLabel('Sender name (optional)').inputValue()).toBe('Acme Tools');
    expect(await form.getByLabel('Customers may release a device').isChecked()).toBe(false);
    expect(await form.getByLabel('Customers may get license files').isChecked()).toBe(true);

    await form.getByRole('button', { name: 'Turn portal off' }).click();
    await page.getByText('Customer portal off: no customer can sign in.').waitFor();
    expect((await settings()).portal).toEqual({ enabled: false, sender_name: 'Acme Tools', support_url: 'https://acme.example/help', allow_device_release: false, allow_license_files: true });
  }, 60_000);
});
