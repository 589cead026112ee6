/// <reference lib="dom" />
import type { Page } from 'playwright-core';
import { expectAccessible } from '../support/axe';
import { newLicense, openDashboard, serviceAndBrowser, tab } from '../support/browser';

/**
 * Every screen has an address in the fragment (`#/apps/<app_id>/<screen>`, a license
 * at `#/apps/<app_id>/licenses/<key>`, the list's filters in the fragment's query):
 * reload, Back/Forward and a link opened in another tab land on the same screen.
 */

const session = serviceAndBrowser();

const focusedHeading = (page: Page) => page.evaluate(() => (document.activeElement?.tagName === 'H1' ? document.activeElement.textContent : null));

describe('the dashboard addresses', () => {
  it('gives every tab, a license and a filter an address that survives reload, Back, Forward and sharing', async () => {
    const { appId } = session.service;
    const key = await newLicense(session.service, { tags: ['beta'] });
    const { context, page } = await openDashboard(session);
    const base = page.url().replace(/#.*$/, '');
    expect(page.url()).toBe(`${base}#/apps/${appId}/licenses`);
    expect(await page.title()).toMatch(/^Licenses · .+ · Licensing dashboard$/);

    await tab(page, 'Subscriptions').click();
    await page.getByRole('heading', { name: 'Subscriptions' }).waitFor();
    expect(page.url()).toBe(`${base}#/apps/${appId}/subscriptions`);
    expect(await page.title()).toMatch(/^Subscriptions · /);
    expect(await focusedHeading(page)).toBe('Subscriptions');

    await page.reload();
    await page.getByRole('heading', { name: 'Subscriptions' }).waitFor();
    expect(await tab(page, 'Subscriptions').getAttribute('aria-current')).toBe('page');

    await page.goBack();
    await page.getByRole('heading', { name: 'Licenses' }).waitFor();
    await page.goForward();
    await page.getByRole('heading', { name: 'Subscriptions' }).waitFor();

    await tab(page, 'Licenses').click();
    await page.getByLabel('Status').selectOption('paused');
    await page.waitForURL(`${base}#/apps/${appId}/licenses?status=paused`);
    await page.getByText('No licenses match.').waitFor();
    await page.goBack();
    await page.getByRole('link', { name: key }).waitFor();
    expect(await page.getByLabel('Status').inputValue()).toBe('');

    await page.getByRole('link', { name: key }).click();
    await page.getByRole('heading', { name: `License ${key}` }).waitFor();
    expect(page.url()).toBe(`${base}#/apps/${appId}/licenses/${key}`);
    expect(await focusedHeading(page)).toBe(`License ${key}`);
    expect(await page.title()).toMatch(new RegExp(`^License ${key} · `));

    // A colleague opens a shared address in a tab of their own: signing in lands on it.
    const shared = await context.newPage();
    await shared.goto(`${base}#/apps/${appId}/licenses?status=active&tag=beta`);
    await shared.getByLabel('API key').fill(session.service.apiKey);
    await shared.getByRole('button', { name: 'Sign in' }).click();
    await shared.getByRole('link', { name: key }).waitFor();
    expect(await shared.getByLabel('Status').inputValue()).toBe('active');
    expect(await shared.getByLabel('Tag', { exact: true }).inputValue()).toBe('beta');
    await shared.goto(`${base}#/apps/${appId}/licenses/${key}`);
    await shared.getByRole('heading', { name: `License ${key}` }).waitFor();

    await shared.goto(`${base}#/apps/NO-SUCH-APP/licenses`);
    await shared.getByRole('heading', { name: 'Not found' }).waitFor();
    await expectAccessible(page, 'gives every tab, a license and a filter an address that surv');
    await context.close();
  }, 60_000);
});
