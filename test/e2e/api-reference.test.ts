/// <reference lib="dom" />
import { serviceAndBrowser } from '../support/browser';

/**
 * `npm start`'s /docs/: Swagger UI renders the document the server generates, in
 * a real Chromium, without one request leaving the server.
 */

const session = serviceAndBrowser();

describe('the API reference at /docs/', () => {
  it('renders every route of the document from the local server alone', async () => {
    const context = await session.browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const elsewhere: string[] = [];
    const errors: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(session.service.url) && !request.url().startsWith('data:')) elsewhere.push(request.url());
    });
    page.on('pageerror', (error) => errors.push(error.message));

    await page.goto(`${session.service.url}/docs/`);
    await page.getByRole('heading', { name: /Licensing service/ }).waitFor();
    const document = (await (await fetch(`${session.service.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    const shown = await page.locator('.opblock-summary-path').allTextContents();
    expect(shown.map((path) => path.replace(/\u200b/g, '')).sort()).toEqual(Object.keys(document.paths).sort());

    await page.locator('.opblock-summary-path', { hasText: '/license/create-bulk' }).click();
    await page.getByText('Create up to 1000 licenses at once').first().waitFor();

    expect(elsewhere).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });
});
