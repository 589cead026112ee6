/// <reference lib="dom" />
import { readFileSync } from 'node:fs';
import type { BrowserContext, Page, Request } from 'playwright-core';
import { expectAccessible } from '../support/axe';
import { api, findChromium, serviceAndBrowser, signIn, startService, tab } from '../support/browser';

/**
 * The owners' dashboard in a real headless Chromium against `npm start` on a
 * fresh data directory. Every change made on screen is checked through the
 * management API too. The page is opened on `localhost` while its API calls go
 * to `127.0.0.1`: two origins, as on AWS (CloudFront and API Gateway).
 */

const session = serviceAndBrowser();

const dashboardUrl = () => `${session.service.url.replace('127.0.0.1', 'localhost')}/dashboard/`;

async function openPage(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  return page;
}

describe('the dashboard in Chromium', () => {
  it('signs in, creates a subscription and 3 licenses, finds, pauses, extends, re-binds and deletes one', async () => {
    const context = await session.browser.newContext({ acceptDownloads: true });
    const page = await openPage(context);
    await page.goto(dashboardUrl());

    await page.getByLabel('API key').fill(session.service.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // One application: straight on its licenses.
    await page.getByRole('heading', { name: 'Licenses' }).waitFor();

    await tab(page, 'Subscriptions').click();
    const newSubscription = page.getByRole('form', { name: 'New subscription' });
    await newSubscription.getByLabel('Name').fill('Pro');
    await newSubscription.getByLabel('Level').fill('2');
    await newSubscription.getByRole('button', { name: 'Create subscription' }).click();
    await page.getByText('Subscription Pro created.').waitFor();
    const subscriptions = await api(session.service, '/subscription/get-bulk', { app_id: session.service.appId });
    expect(subscriptions.body.data).toEqual([expect.objectContaining({ name: 'Pro', level: 2, status: 'active' })]);

    await tab(page, 'Licenses').click();
    await page.getByRole('button', { name: 'Create licenses' }).click();
    await page.getByLabel('How many').fill('3');
    await page.getByLabel('Tags (comma separated)').fill('e2e');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByRole('heading', { name: '3 new licenses' }).waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    const csvRows = readFileSync((await download.path())!, 'utf8').trim().split('\n');
    const keys = csvRows.slice(1).map((row) => row.split(',')[0]!);
    expect(csvRows[0]).toBe('key,subscription,duration_seconds,tags');
    expect(keys).toHaveLength(3);
    const listed = await api<{ key: string; tags: string[] }[]>(session.service, '/license/get-bulk', { app_id: session.service.appId });
    expect(listed.body.data.map((license) => license.key).sort()).toEqual([...keys].sort());
    expect(listed.body.data.every((license) => license.tags.includes('e2e'))).toBe(true);

    await page.getByRole('button', { name: 'Back to licenses' }).click();
    await waitForCount(page.locator('tbody tr'), 3);
    const [key, other] = keys as [string, string, string];
    await page.getByLabel('Find a license').fill(key);
    await page.getByRole('button', { name: 'Find', exact: true }).click();
    await page.getByRole('heading', { name: `License ${key}` }).waitFor();

    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByText('Paused.').waitFor();
    expect((await api(session.service, '/license/get', { license_key: key })).body.data.status).toBe('paused');

    const before = Number((await api(session.service, '/license/get', { license_key: key })).body.data.initial_duration);
    const extend = page.getByRole('form', { name: 'Extend' });
    await extend.getByLabel('By').fill('2');
    await extend.getByRole('button', { name: 'Extend' }).click();
    await page.getByText('Extended by 2 days.').waitFor();
    expect(Number((await api(session.service, '/license/get', { license_key: key })).body.data.initial_duration)).toBe(before + 2 * 86400);

    await page.getByRole('form', { name: 'HWID' }).getByLabel('HWID', { exact: true }).fill('E2E-DEVICE-1');
    await page.getByRole('button', { name: 'Save HWID' }).click();
    await page.getByText('HWID set.').waitFor();
    expect((await api(session.service, '/license/get', { license_key: key })).body.data.hwid).toBe('E2E-DEVICE-1');

    await page.getByRole('button', { name: 'Delete license…' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete license' }).click();
    await page.getByRole('heading', { name: 'Licenses' }).waitFor();
    const gone = await api(session.service, '/license/get', { license_key: key });
    expect(gone.status).toBe(404);
    expect(gone.body.error_code).toBe('LICENSE_NOT_FOUND');
    await waitForCount(page.locator('tbody tr'), 2);

    await page.getByLabel('Select all on this page').check();
    await page.getByRole('region', { name: 'Bulk actions' }).getByRole('button', { name: 'Pause' }).click();
    await page.getByText('Paused: 2 succeeded.').waitFor();
    expect((await api(session.service, '/license/get', { license_key: other })).body.data.status).toBe('paused');

    await page.getByLabel('Find a license').fill('NO-SUCH-KEY');
    await page.getByRole('button', { name: 'Find', exact: true }).click();
    await page.getByText('No license of this application has that key, username, bound device or email.').waitFor();
    await expectAccessible(page, 'licenses with a failed lookup');
    await context.close();
  }, 60_000);

  it('signs in once through the banner link, whose code is no key, and keeps the key out of every address, localStorage and cookies', async () => {
    const link = session.service.signInLink.replace('127.0.0.1', 'localhost');
    expect(link).not.toContain(session.service.apiKey);
    const context = await session.browser.newContext();
    const page = await openPage(context);
    const requests: Request[] = [];
    const addresses: string[] = [];
    page.on('request', (request) => requests.push(request));
    page.on('framenavigated', (frame) => addresses.push(frame.url()));

    // Stamped by the page itself when the licenses table enters the document, so that the printed
    // figure is the page's and not this test's polling (the budget is checked by reading it, not asserted).
    await page.addInitScript(() => {
      new MutationObserver((_, observer) => {
        if (!document.querySelector('table.licenses')) return;
        (window as unknown as { licensesShown: number }).licensesShown = performance.now();
        observer.disconnect();
      }).observe(document, { subtree: true, childList: true });
    });
    await page.goto(link);
    await page.getByRole('heading', { name: 'Licenses' }).waitFor();
    await page.locator('table.licenses').waitFor();
    expect(addresses.length).toBeGreaterThan(1);
    expect(addresses.filter((address) => address.includes(session.service.apiKey) || address.includes('code='))).toEqual([link]);
    const firstScreen = await page.evaluate(() => ({
      firstContentfulPaint: performance.getEntriesByName('first-contentful-paint')[0]!.startTime,
      domContentLoaded: (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).domContentLoadedEventEnd,
      licensesShown: (window as unknown as { licensesShown: number }).licensesShown,
    }));
    process.stdout.write(
      `dashboard first screen: first contentful paint ${firstScreen.firstContentfulPaint.toFixed(0)} ms, DOMContentLoaded ${firstScreen.domContentLoaded.toFixed(0)} ms, ` +
        `licenses table shown ${firstScreen.licensesShown.toFixed(0)} ms after navigation start (sign-in code redeemed on the way)\n`,
    );
    for (const name of ['Subscriptions', 'Blacklists', 'Statistics', 'Signing key & settings', 'Licenses']) {
      await tab(page, name).click();
      await page.getByRole('heading', { name }).waitFor();
    }

    const apiOrigin = new URL(session.service.url).origin;
    const carrying = requests.filter((request) => JSON.stringify(request.headers()).includes(session.service.apiKey) || request.url().includes(session.service.apiKey));
    expect(carrying.length).toBeGreaterThan(3);
    expect(carrying.filter((request) => new URL(request.url()).origin !== apiOrigin).map((request) => request.url())).toEqual([]);
    expect(requests.filter((request) => new URL(request.url()).origin !== apiOrigin && request.url().includes('key=')).map((request) => request.url())).toEqual([]);
    expect(page.url()).toBe(`${dashboardUrl()}#/apps/${session.service.appId}/licenses`);
    const stored = await page.evaluate(() => ({
      local: JSON.stringify({ ...localStorage }),
      session: JSON.stringify({ ...sessionStorage }),
      cookie: document.cookie,
      historyLength: history.length,
    }));
    expect(stored.local).not.toContain(session.service.apiKey);
    expect(stored.cookie).not.toContain(session.service.apiKey);
    expect(stored.session).toContain(session.service.apiKey);
    expect(JSON.stringify(await context.cookies())).not.toContain(session.service.apiKey);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor();
    expect(await page.evaluate(() => JSON.stringify({ ...sessionStorage }))).not.toContain(session.service.apiKey);

    // The same link again (from the history, or copied): the code is spent.
    const again = await openPage(context);
    await again.goto(link);
    await again.getByRole('alert').filter({ hasText: 'This sign-in link was used already or has expired.' }).waitFor();
    await again.getByLabel('API key').waitFor();
    expect(again.url()).toBe(dashboardUrl());
    expect(await again.evaluate(() => JSON.stringify({ ...sessionStorage }))).not.toContain(session.service.apiKey);
    await expectAccessible(again, 'sign-in after a spent link');
    await context.close();
  }, 60_000);

  it('retries a 429 after Retry-After instead of showing it', async () => {
    // One request per second, burst 2, and the test's own calls keep the owner's bucket empty until the
    // dashboard meets a 429: on a busy machine the first screen's calls alone may come a second apart.
    const throttled = await startService({ RATE_LIMIT_RPS: '1', RATE_LIMIT_BURST: '2' });
    const context = await session.browser.newContext();
    let draining = true;
    const drain = (async () => {
      for (let calls = 0; draining && calls < 600; calls++) {
        await api(throttled, '/app/list', {});
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    try {
      const page = await openPage(context);
      const statuses: number[] = [];
      page.on('response', (response) => {
        statuses.push(response.status());
        if (response.status() === 429) draining = false;
      });

      await signIn(page, `${throttled.url}/dashboard/`, throttled.apiKey);
      await page.getByRole('heading', { name: 'Licenses' }).waitFor();
      await page.getByText('No licenses match.').waitFor();

      expect(statuses).toContain(429);
      expect(await page.getByRole('alert').count()).toBe(0);
      await expectAccessible(page, 'licenses after retried 429s');
    } finally {
      draining = false;
      await drain;
      await context.close();
      await throttled.stop();
    }
  }, 60_000);

  it('is served under a CSP that allows no inline script and no framing', async () => {
    const response = await fetch(dashboardUrl());
    const csp = response.headers.get('content-security-policy') ?? '';

    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("frame-ancestors 'none'");
    expect(await response.text()).not.toMatch(/<script(?![^>]*\bsrc=)/);
  });
});

describe('finding Chromium', () => {
  it('fails with how to install it when none is found', () => {
    expect(() => findChromium(['/nowhere/chromium', undefined])).toThrow(/apt-get install -y chromium/);
  });
});

/** playwright-core has no test runner and so no auto-retrying `toHaveCount`: this polls for it. */
async function waitForCount(locator: ReturnType<Page['locator']>, count: number) {
  const deadline = Date.now() + 30_000;
  while ((await locator.count()) !== count) {
    if (Date.now() > deadline) throw new Error(`expected ${count} rows, found ${await locator.count()}`);
    await new Promise((done) => setTimeout(done, 50));
  }
}
