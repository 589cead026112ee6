/// <reference lib="dom" />
import type { BrowserContext, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { expectAccessible } from '../support/axe';
import { api, openDashboard, serviceAndBrowser, tab } from '../support/browser';
import { startReceiver, until, type Receiver } from '../support/webhooks';

/**
 * The Webhooks screen over `npm start` and its local delivery queue: an
 * endpoint made on screen receives events signed with the secret the screen
 * showed once, and the log, redelivery, filter and enabled flag on screen are
 * what the management API answers.
 */
let context: BrowserContext;
let page: Page;
let receiver: Receiver;

const session = serviceAndBrowser();
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
});
beforeEach(async () => {
  ({ context, page } = await openDashboard(session));
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
});
afterEach(async () => {
  await context?.close();
});

interface ListedWebhook {
  webhook_id: string;
  url: string;
  events: string[];
  enabled: boolean;
}

const listed = async () => (await api<ListedWebhook[]>(session.service, '/webhook/list', { app_id: session.service.appId })).body.data;

async function createLicense() {
  const subscription = await api<{ subscription_id: string }>(session.service, '/subscription/create', { app_id: session.service.appId, name: `S${Date.now()}`, level: 1 });
  return api<{ key: string }>(session.service, '/license/create', {
    app_id: session.service.appId,
    subscription_id: subscription.body.data.subscription_id,
    duration_unit: 'days',
    duration_value: 30,
  });
}

describe('the Webhooks screen', () => {
  it('adds an endpoint, shows and copies its secret once, and the endpoint receives events that secret verifies', async () => {
    await Promise.all([page.waitForResponse((answer) => answer.url().endsWith('/webhook/list')), tab(page, 'Webhooks').click()]);
    await page.getByRole('heading', { name: 'Webhooks' }).waitFor();
    // The list reload that follows the create is held until the secret was copied, as on a slow network
    // where the owner copies at once: the create's own notice, due when the list is back, must not then
    // replace the copy's.
    let releaseList!: () => void;
    const listHeld = new Promise<void>((resolve) => (releaseList = resolve));
    await page.route('**/webhook/list', async (route) => {
      await listHeld;
      await route.continue();
    });
    const form = page.getByRole('form', { name: 'Add endpoint' });
    await form.getByLabel('URL').fill(receiver.url);
    await form.getByLabel('Events').fill('license.created');
    await form.getByLabel('Description').fill('CRM');
    await form.getByRole('button', { name: 'Add endpoint' }).click();
    const shown = page.getByRole('status', { name: 'New secret' });
    const secret = (await shown.locator('pre code').textContent())!;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    await shown.getByRole('button', { name: 'Copy secret' }).click();
    await page.getByText('Secret copied.').waitFor();
    releaseList();
    await page.getByRole('row').filter({ hasText: receiver.url }).waitFor();
    await page.unroute('**/webhook/list');
    expect(await shown.getByText('Secret copied.').count()).toBe(1);
    expect(await page.getByText('Endpoint added.').count()).toBe(0);
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await shown.getByRole('button', { name: 'Done' }).click();
    expect(await page.getByRole('status', { name: 'New secret' }).count()).toBe(0);

    const [endpoint] = await listed();
    expect(endpoint).toMatchObject({ url: receiver.url, events: ['license.created'], enabled: true });
    expect(JSON.stringify(endpoint)).not.toContain('whsec_');
    const row = page.getByRole('row').filter({ hasText: receiver.url });
    expect(await row.getByRole('cell').nth(2).textContent()).toBe('CRM');

    const license = await createLicense();
    await until(() => receiver.received.length === 1, 15_000);
    const delivered = new Webhook(secret).verify(receiver.received[0]!.body, receiver.received[0]!.headers as Record<string, string>);
    expect(delivered).toMatchObject({ type: 'license.created', subject: license.body.data.key });
    await expectAccessible(page, 'adds an endpoint, shows and copies its secret once, and the ');
  }, 60_000);

  it('shows the delivery log with state, attempts and last status, and redelivers from it', async () => {
    const [endpoint] = await listed();
    await tab(page, 'Webhooks').click();
    await page.getByRole('row').filter({ hasText: endpoint!.url }).getByRole('button', { name: 'Deliveries' }).click();
    const log = page.getByRole('region', { name: `Deliveries to ${endpoint!.url}` });
    const first = log.locator('tbody tr').first();
    await first.waitFor();
    const cells = async () => first.locator('td').evaluateAll((tds) => tds.map((td) => td.textContent));
    expect((await cells()).slice(0, 4)).toEqual(['license.created', 'delivered', '1', '204']);

    const before = receiver.received.length;
    await first.getByRole('button', { name: 'Redeliver' }).click();
    await page.getByText('Redelivery of license.created queued.').waitFor();
    await until(() => receiver.received.length === before + 1, 15_000);
    expect(receiver.received.at(-1)!.headers['webhook-id']).toBe(receiver.received[before - 1]!.headers['webhook-id']);
    const logEntry = async () => (await api<{ attempts: number; state: string }[]>(session.service, '/webhook/deliveries', { webhook_id: endpoint!.webhook_id })).body.data[0]!;
    await until(async () => (await logEntry()).attempts === 2 && (await logEntry()).state === 'delivered', 15_000);
    // The screen shows what the log held when it last loaded: refresh until it shows the recorded outcome.
    await until(async () => {
      await log.getByRole('button', { name: 'Refresh' }).click();
      return JSON.stringify((await cells()).slice(0, 4)) === JSON.stringify(['license.created', 'delivered', '2', '204']);
    }, 30_000);
    await expectAccessible(page, 'shows the delivery log with state, attempts and last status,');
  }, 60_000);

  it('changes the event filter and disables and enables the endpoint', async () => {
    const [endpoint] = await listed();
    await tab(page, 'Webhooks').click();
    const row = page.getByRole('row').filter({ hasText: endpoint!.url });
    await row.getByLabel(`Events of ${endpoint!.url}`).fill('license.created, license.deleted');
    await row.getByLabel(`Events of ${endpoint!.url}`).blur();
    await page.getByText('Event filter saved.').waitFor();
    expect((await listed())[0]!.events).toEqual(['license.created', 'license.deleted']);

    await row.getByRole('button', { name: 'Disable' }).click();
    await page.getByText('Disabled.').waitFor();
    expect((await listed())[0]!.enabled).toBe(false);
    expect(await row.getByRole('cell').nth(3).textContent()).toBe('no');
    const before = receiver.received.length;
    await createLicense();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(receiver.received).toHaveLength(before);

    await row.getByRole('button', { name: 'Enable' }).click();
    await page.getByText('Enabled.').waitFor();
    expect((await listed())[0]!.enabled).toBe(true);
    await expectAccessible(page, 'changes the event filter and disables and enables the endpoi');
  }, 60_000);
});
