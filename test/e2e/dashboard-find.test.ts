/// <reference lib="dom" />
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expectAccessible } from '../support/axe';
import { api, openDashboard, serviceAndBrowser } from '../support/browser';

/**
 * The Licenses screen finds a license by key, username, bound device or
 * customer email through /license/find, and acts on every license the filter
 * matches (paged through the API, with progress and a cancel), not only the 25
 * on screen. A license's customer email is given on creation and edited on its
 * own screen.
 */

const session = serviceAndBrowser();

type Listed = { key: string; status: string; expires_at: string | null; initial_duration: number };

async function listAll(tag: string): Promise<Listed[]> {
  const found: Listed[] = [];
  let cursor: string | null = null;
  do {
    const page: { body: { data: Listed[] } } = await api<Listed[]>(session.service, '/license/get-bulk', { app_id: session.service.appId, tag, per_page: 100, ...(cursor ? { cursor } : {}) });
    found.push(...page.body.data);
    cursor = (page.body as { next_cursor?: string | null }).next_cursor ?? null;
  } while (cursor);
  return found;
}

describe('finding licenses and acting on all matches', () => {
  it('finds by username and by bound device, and pauses, exports and cancels over every match of a filter', async () => {
    const { appId } = session.service;
    const subscription = (await api(session.service, '/subscription/create', { app_id: appId, name: 'Pro', level: 1, single_key_per_hwid: false })).body.data;
    const common = { app_id: appId, subscription_id: subscription.subscription_id, duration_unit: 'days', duration_value: 30 };
    const named = (await api<{ key: string }>(session.service, '/license/create', { ...common, username: 'Grace.Hopper', password: 'a long password' })).body.data.key;
    const bound = (await api<{ key: string }>(session.service, '/license/create', { ...common, hwid_lock: true })).body.data.key;
    expect((await api(session.service, '/auth', { app_id: appId, license: bound, hwid: 'lab-pc-7' })).status).toBe(200);
    const campaign = await api<{ key: string }[]>(session.service, '/license/create-bulk', { ...common, key_amount: 60, tags: ['campaign'] });
    expect(campaign.body.data).toHaveLength(60);
    // The device's entry comes from the events consumer a moment after the binding.
    for (let tries = 0; (await api<{ matches: unknown[] }>(session.service, '/license/find', { app_id: appId, query: 'lab-pc-7' })).body.data.matches.length === 0; tries++) {
      if (tries > 50) throw new Error('the bound device never became findable');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }

    const { page } = await openDashboard(session);
    const search = page.getByRole('search');
    await search.getByLabel('Find a license').fill('grace.hopper');
    await search.getByRole('button', { name: 'Find' }).click();
    await page.getByText('matched by username').waitFor();
    expect(page.url()).toContain('q=grace.hopper');
    await page.getByRole('link', { name: named }).waitFor();
    await search.getByLabel('Find a license').fill('lab-pc-7');
    await search.getByRole('button', { name: 'Find' }).click();
    await page.getByText('matched by bound device').waitFor();
    await page.getByRole('link', { name: bound }).first().waitFor();
    await page.getByRole('button', { name: 'Clear search' }).click();
    await page.getByRole('heading', { name: /Found for/ }).waitFor({ state: 'detached' });

    // The tag filter matches 60 licenses; 25 are on screen.
    await page.getByLabel('Tag', { exact: true }).fill('campaign');
    await page.getByLabel('Tag', { exact: true }).press('Enter');
    await page.waitForURL(/tag=campaign/);
    await page.locator('table.licenses tbody tr').nth(24).waitFor();
    expect(await page.locator('table.licenses tbody tr').count()).toBe(25);
    const all = page.getByRole('region', { name: 'Actions on all matches' });

    await all.getByRole('button', { name: 'Pause all' }).click();
    await page.getByText('Paused 60 of 60 matching licenses.').waitFor({ timeout: 30_000 });
    expect((await listAll('campaign')).every((license) => license.status === 'paused')).toBe(true);

    const [download] = await Promise.all([page.waitForEvent('download'), all.getByRole('button', { name: 'Export CSV' }).click()]);
    const rows = readFileSync((await download.path())!, 'utf8').trim().split('\n');
    expect(rows).toHaveLength(61);
    expect(rows[0]).toBe('key,status,subscription,created_at,expires_at,first_used_at,hwid,username,tags');
    expect(new Set(rows.slice(1).map((row) => row.split(',')[0]))).toEqual(new Set(campaign.body.data.map((license) => license.key)));
    await page.getByText('Exported 60 matching licenses.').waitFor({ timeout: 30_000 });
    await expectAccessible(page, 'licenses with actions on all matches');

    // Slow listing answers keep the run in its reading phase long enough to cancel it: nothing is extended.
    await page.route('**/license/get-bulk', async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await route.continue();
    });
    const before = await listAll('campaign');
    await all.getByRole('button', { name: 'Extend all (days)' }).click();
    await all.getByRole('status').waitFor();
    expect(await all.getByRole('progressbar').count()).toBe(1);
    await all.getByRole('button', { name: 'Cancel' }).click();
    await page.getByText('Cancelled before any change.').waitFor();
    // A listing answer still held back is let through first: unrouting under it would handle its route twice.
    await page.unrouteAll({ behavior: 'wait' });
    expect(await listAll('campaign')).toEqual(before);
  }, 90_000);

  it('creates a license with a customer email, finds it by that email in any case, and changes and removes the email on its screen', async () => {
    const { appId } = session.service;
    await api(session.service, '/subscription/create', { app_id: appId, name: 'Mail', level: 2, single_key_per_hwid: false });
    const { page } = await openDashboard(session);

    await page.getByRole('button', { name: 'Create licenses' }).click();
    await page.getByRole('heading', { name: 'Create licenses' }).waitFor();
    await page.getByLabel('Customer email (optional)').fill('Ada.Buyer@Example.com');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByRole('heading', { name: '1 new license' }).waitFor();
    const key = (await page.locator('ul.keys code').first().textContent())!;
    expect((await api<{ email?: string }>(session.service, '/license/get', { license_key: key })).body.data.email).toBe('ada.buyer@example.com');
    // The email's lookup entry comes from the events consumer a moment after the write.
    const findable = async (query: string) => (await api<{ matches: unknown[] }>(session.service, '/license/find', { app_id: appId, query })).body.data.matches.length > 0;
    for (let tries = 0; !(await findable('ada.buyer@example.com')); tries++) {
      if (tries > 50) throw new Error('the email never became findable');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await page.getByRole('button', { name: 'Back to licenses' }).click();

    const search = page.getByRole('search');
    await search.getByLabel('Find a license').fill('ADA.BUYER@example.COM');
    await search.getByRole('button', { name: 'Find' }).click();
    const found = page.getByRole('region', { name: /Found for/ });
    await found.getByText('matched by email, ada.buyer@example.com').waitFor();
    await found.getByRole('link', { name: key }).click();
    await page.getByRole('heading', { name: `License ${key}` }).waitFor();
    expect(await page.locator('dd[data-field="Email"]').textContent()).toBe('ada.buyer@example.com');

    const card = page.getByRole('form', { name: 'Customer email' });
    await card.getByLabel('Email').fill('not an address');
    await card.getByRole('button', { name: 'Save email' }).click();
    // The browser's own check refuses it before any request: the license keeps its email.
    expect(await card.getByLabel('Email').evaluate((input) => (input as HTMLInputElement).validity.valid)).toBe(false);
    expect((await api<{ email?: string }>(session.service, '/license/get', { license_key: key })).body.data.email).toBe('ada.buyer@example.com');

    await card.getByLabel('Email').fill('  Ada@New-Domain.example ');
    await card.getByRole('button', { name: 'Save email' }).click();
    await card.getByText('Email saved.').waitFor();
    expect(await page.locator('dd[data-field="Email"]').textContent()).toBe('ada@new-domain.example');
    expect((await api<{ email?: string }>(session.service, '/license/get', { license_key: key })).body.data.email).toBe('ada@new-domain.example');
    await expectAccessible(page, 'license detail with its customer email');
    await card.screenshot({ path: process.env.EMAIL_SCREENSHOT ?? join(tmpdir(), 'dashboard-license-email.png') });

    await card.getByRole('button', { name: 'Remove email' }).click();
    await card.getByText('Email removed.').waitFor();
    expect(await page.locator('dd[data-field="Email"]').textContent()).toBe('—');
    expect((await api<{ email?: string }>(session.service, '/license/get', { license_key: key })).body.data).not.toHaveProperty('email');
    expect(await card.getByRole('button', { name: 'Remove email' }).count()).toBe(0);
    await expectAccessible(page, 'license detail without a customer email');
  }, 90_000);
});
