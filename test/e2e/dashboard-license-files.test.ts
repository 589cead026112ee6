/// <reference lib="dom" />
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { decodeJwt } from 'jose';
import { expectAccessible } from '../support/axe';
import { api, newLicense, openDashboard, serviceAndBrowser, tab } from '../support/browser';

/**
 * The license screen's license files (docs/licensing-models.md, "License files and air-gapped
 * devices"): the live files as `/license/get` lists them, and an activation request pasted by
 * the owner, which makes a file to download, for that license only.
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

const activationRequest = (fields: Record<string, unknown>) => `lfr1.${Buffer.from(JSON.stringify(fields)).toString('base64url')}`;

async function openLicense(key: string) {
  await page.getByLabel('Find a license').fill(key);
  await page.getByRole('button', { name: 'Find', exact: true }).click();
  await page.getByRole('heading', { name: `License ${key}` }).waitFor();
  return page.getByRole('form', { name: 'License files' });
}

describe('the license screen\'s license files', () => {
  it('lists the live files, makes one from a pasted activation request to download, and refuses another license\'s request', async () => {
    const key = await newLicense(session.service, { hwid_lock: true, max_devices: 2 });
    const online = await api(session.service, '/license-file', { app_id: session.service.appId, license: key, hwid: 'OFFICE-PC', lifetime_seconds: 86400 });
    expect(online.status).toBe(200);

    const files = await openLicense(key);
    const rows = files.getByRole('table', { name: 'Live license files' }).locator('tbody tr');
    await rows.first().waitFor();
    expect(await rows.count()).toBe(1);
    expect(await rows.nth(0).locator('td').first().textContent()).toBe('OFFICE-PC');
    expect(await rows.nth(0).locator('td').last().textContent()).toBe('no');

    const other = await newLicense(session.service, { hwid_lock: true });
    await files.getByLabel('Activation request').fill(activationRequest({ app_id: session.service.appId, license: other, hwid: 'LAB-PC', nonce: 'dashboard-nonce-1' }));
    await files.getByRole('button', { name: 'Make license file' }).click();
    await files.getByText('This activation request is for another license or application.').waitFor();
    await files.getByLabel('Activation request').fill('not a request');
    await files.getByRole('button', { name: 'Make license file' }).click();
    await files.getByText('That is no activation request: it starts with lfr1. and holds no spaces.').waitFor();

    await files.getByLabel('Activation request').fill(activationRequest({ app_id: session.service.appId, license: key, hwid: 'LAB-PC', nonce: 'dashboard-nonce-2', lifetime_seconds: 7200 }));
    await files.getByRole('button', { name: 'Make license file' }).click();
    await page.getByText('License file made for LAB-PC: download it and hand it to the customer.').waitFor();
    const downloading = page.waitForEvent('download');
    await files.getByRole('button', { name: 'Download license.lic for LAB-PC' }).click();
    const downloaded = await downloading;
    expect(downloaded.suggestedFilename()).toBe('license.lic');
    const text = readFileSync((await downloaded.path())!, 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    const claims = decodeJwt(text.trim());
    expect(claims).toMatchObject({ sub: key, hwid: 'LAB-PC', nonce: 'dashboard-nonce-2', air_gapped: true });

    const record = (await api<{ files: { jti: string; hwid: string; air_gapped: boolean }[] }>(session.service, '/license/get', { license_key: key })).body.data;
    expect(record.files.map((file) => [file.hwid, file.air_gapped])).toEqual([
      ['OFFICE-PC', false],
      ['LAB-PC', true],
    ]);
    expect(record.files[1]!.jti).toBe(claims.jti);
    await files.getByRole('table', { name: 'Live license files' }).locator('tbody tr').nth(1).getByText('LAB-PC').waitFor();
    expect(await rows.nth(1).locator('td').last().textContent()).toBe('yes');
    await files.screenshot({ path: process.env.LICENSE_FILES_SCREENSHOT ?? join(tmpdir(), 'dashboard-license-files.png') });
    await expectAccessible(page, 'lists the live files, makes one from a pasted activation request');

    await files.getByLabel('Activation request').fill(activationRequest({ app_id: session.service.appId, license: key, hwid: 'THIRD-PC', nonce: 'dashboard-nonce-3' }));
    await files.getByRole('button', { name: 'Make license file' }).click();
    await files.getByText('The service refused the request: HWID_MISMATCH').waitFor();
  }, 90_000);

  it('sets the longest license file on the settings screen, which /app/settings then answers', async () => {
    await tab(page, 'Signing key & settings').click();
    const form = page.getByRole('form', { name: 'License files' });
    await form.getByLabel('Longest license file (seconds)').fill('604800');
    await form.getByRole('button', { name: 'Save longest file' }).click();
    await page.getByText('Longest license file set to 1 week.').waitFor();
    expect((await api(session.service, '/app/settings', { app_id: session.service.appId })).body.data.max_license_file_seconds).toBe(604800);
    await expectAccessible(page, 'sets the longest license file on the settings screen');
  }, 60_000);
});
