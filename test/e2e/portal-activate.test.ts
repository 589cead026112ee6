/// <reference lib="dom" />
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LicenseClient } from '../../clients/app-typescript/src/index';
import { expectAccessible } from '../support/axe';
import { api, desktopAndPhone, expectNoHorizontalScroll, newLicense, serviceAndBrowser } from '../support/browser';
import { timeFor } from '../support/time';

/**
 * The customers' portal as `npm start` serves it at /portal/, and its activation page
 * (`/portal/activate/#<request>`), which needs no sign-in: a program's activation
 * request, made by the TypeScript app library, becomes a license file in the
 * browser that the same program then accepts.
 */
const session = serviceAndBrowser();


/** A program of the demo application as a customer's offline computer runs it: the app library with a state directory. */
async function program(): Promise<LicenseClient> {
  const key = await api<{ jwk: { kty: 'OKP'; crv: 'Ed25519'; x: string } }>(session.service, '/app/signing-key', { app_id: session.service.appId });
  return new LicenseClient({ url: session.service.url, appId: session.service.appId, publicKey: key.body.data.jwk, stateDir: mkdtempSync(join(tmpdir(), 'portal-program-')) });
}

describe('the portal site', () => {
  it('is served at /portal/ under a CSP that allows no inline script, and says so when its address names no application', async () => {
    const context = await session.browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    const answer = (await page.goto(`${session.service.url}/portal/`))!;
    const csp = answer.headers()['content-security-policy']!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    await page.getByText('This address names no application. Open the link from your email or from the program you bought.').waitFor();
    expect(await page.getByRole('alert').count()).toBe(1);
    // The bundle is the portal's own: nothing of the dashboard's screens or its API key handling.
    const bundle = await (await fetch(`${session.service.url}/portal/app.js`)).text();
    expect(bundle).not.toContain('x-api-key');
    expect(bundle).not.toContain('licensing.apiKey');
    await context.close();
  }, 60_000);

  it.each(desktopAndPhone)('turns an activation request link into a license file the program accepts, without sign-in (%s)', async (name, viewport) => {
    const key = await newLicense(session.service, { hwid_lock: true, max_devices: 2 });
    const app = await program();
    const { request, link } = await app.activationRequest({ license: key, hwid: `OFFLINE-${name.toUpperCase()}`, lifetimeSeconds: 7200, portalUrl: `${session.service.url}/portal/` });
    expect(link).toBe(`${session.service.url}/portal/activate/#${request}`);

    const context = await session.browser.newContext({ viewport, acceptDownloads: true });
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    await page.goto(link!);
    await page.getByRole('heading', { name: 'Activate an offline computer' }).waitFor();
    // The request holds the license key: it leaves the address bar and the history at once.
    await page.waitForFunction(() => location.hash === '');
    expect(await page.getByLabel('Activation request').inputValue()).toBe(request);
    await page.getByText(`For the device OFFLINE-${name.toUpperCase()} and the license ${key}.`).waitFor();
    await expectAccessible(page, `activation page (${name})`);
    if (viewport.width < 500) await expectNoHorizontalScroll(page, 'activation page');

    await page.getByRole('button', { name: 'Make license file' }).click();
    await page.getByRole('status').getByText(`License file made for OFFLINE-${name.toUpperCase()}: download it and copy it to that computer.`).waitFor();
    const downloading = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download license.lic' }).click();
    const downloaded = await downloading;
    expect(downloaded.suggestedFilename()).toBe('license.lic');
    const file = readFileSync((await downloaded.path())!, 'utf8');
    expect(file.endsWith('\n')).toBe(true);
    const claims = await app.loadLicenseFile(file);
    expect(claims).toMatchObject({ sub: key, hwid: `OFFLINE-${name.toUpperCase()}`, air_gapped: true });
    await expectAccessible(page, `activation page, file made (${name})`);
    if (viewport.width < 500) await expectNoHorizontalScroll(page, 'activation page, file made');

    const record = (await api<{ files: { hwid: string; air_gapped: boolean }[] }>(session.service, '/license/get', { license_key: key })).body.data;
    expect(record.files.map((made) => [made.hwid, made.air_gapped])).toEqual([[`OFFLINE-${name.toUpperCase()}`, true]]);
    await context.close();
  }, timeFor(6, 15_000));

  it('shows the service\'s refusal as sent, and refuses what is no request before sending it', async () => {
    const app = await program();
    const { request } = await app.activationRequest({ license: 'NO-SUCH-KEY-0000', hwid: 'LAB-PC' });
    const refusal = (await (await fetch(`${session.service.url}/license-file`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ request }) })).json()) as { success: boolean; message: string };
    expect(refusal.success).toBe(false);

    const context = await session.browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    await page.goto(`${session.service.url}/portal/activate/#${request}`);
    await page.getByRole('button', { name: 'Make license file' }).click();
    await page.getByRole('alert').getByText(refusal.message, { exact: true }).waitFor();
    await page.getByLabel('Activation request').fill('not a request');
    await page.getByRole('button', { name: 'Make license file' }).click();
    await page.getByRole('alert').getByText('That is no activation request: it starts with lfr1. and holds no spaces.').waitFor();
    await expectAccessible(page, 'activation page with an error');
    await context.close();
  }, timeFor(4, 15_000));
});
