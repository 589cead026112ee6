import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { messagesTo, type OutboxMessage } from './outbox';

const installHint =
  'The dashboard browser tests need Chromium. On Debian/Ubuntu: `sudo apt-get install -y chromium` ' +
  '(.ci/run installs it), or set CHROMIUM_PATH to a Chromium or Chrome executable.';

/** Debian's `chromium` first; CHROMIUM_PATH wins. No Chromium is a failure, never a skipped suite. */
export function findChromium(
  candidates: (string | undefined)[] = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'],
): string {
  const found = candidates.find((path): path is string => Boolean(path) && existsSync(path!));
  if (!found) throw new Error(installHint);
  return found;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: findChromium(), headless: true, timeout: 30_000 });
}

export interface StartedService {
  /** http://127.0.0.1:<port>, as the banner prints it. */
  url: string;
  apiKey: string;
  appId: string;
  /** The dashboard link of the banner, with its one-time sign-in code. */
  signInLink: string;
  /** Its DATA_DIR: the emails it sends are files in its outbox/. */
  dataDir: string;
  stop(): Promise<void>;
}

/**
 * `npm start` (bin/local.ts) on a fresh data directory and table, read back from
 * its startup banner. Under `npm test` it uses the run's DynamoDB Local
 * (DYNAMODB_ENDPOINT); without one it starts the embedded store like a newcomer's.
 */
export async function startService(env: Record<string, string> = {}): Promise<StartedService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'licensing-dashboard-'));
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'bin/local.ts'], {
    cwd: join(import.meta.dirname, '..', '..'),
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: '0',
      DYNAMODB_PORT: '0',
      TABLE_NAME: `dashboard-${Date.now()}-${process.pid}`,
      LOG_LEVEL: 'silent',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const banner = await new Promise<{ url: string; apiKey: string; appId: string; signInLink: string }>((ready, failed) => {
    const timer = setTimeout(() => failed(new Error(`npm start printed no banner within 60 s:\n${output}`)), 60_000);
    const check = () => {
      const app = /demo app:\s+(\S+)/.exec(output);
      const apiKey = /API key:\s+(\S+)/.exec(output);
      const dashboard = /dashboard:\s+((http:\/\/\S+?)\/dashboard\/#code=\S+)/.exec(output);
      if (app?.[1] && apiKey?.[1] && dashboard?.[1] && dashboard[2]) {
        clearTimeout(timer);
        ready({ url: dashboard[2], apiKey: apiKey[1], appId: app[1], signInLink: dashboard[1] });
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      failed(new Error(`npm start exited with ${code}:\n${output}`));
    });
  });
  return {
    ...banner,
    dataDir,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((done) => child.once('exit', done));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A management call as any owner makes it: how the tests check what the dashboard did. */
export async function api<T = any>(service: StartedService, path: string, body: object): Promise<{ status: number; body: { success?: boolean; data: T; error_code?: string } }> {
  const response = await fetch(`${service.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': service.apiKey },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as { data: T } };
}

/**
 * `npm start` and Chromium for a whole test file: both started before its first
 * test and stopped after its last. Read `service` and `browser` inside tests and hooks.
 */
export function serviceAndBrowser(): { readonly service: StartedService; readonly browser: Browser } {
  const session = {} as { service: StartedService; browser: Browser };
  beforeAll(async () => {
    [session.service, session.browser] = await Promise.all([startService(), launchChromium()]);
  }, 90_000);
  afterAll(async () => {
    await session.browser?.close();
    await session.service?.stop();
  });
  return session;
}

/** Opens `address` (the dashboard or a screen of it) and signs in there by typing `apiKey`, as an owner who pastes it. */
export async function signIn(page: Page, address: string, apiKey: string): Promise<void> {
  await page.goto(address);
  await page.getByLabel('API key').fill(apiKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** Polls `probe` every 250 ms until it gives a value, for at most 30 s; then fails saying `what` it waited for. */
async function within30s<T>(what: () => string, probe: () => Promise<T | undefined> | T | undefined): Promise<T> {
  for (let tries = 0; tries < 120; tries++) {
    const found = await probe();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${what()}: not after 30 s`);
}

/** Waits until `/license/find` by `email` lists `count` licenses: the events consumer writes the lookup by email from the stream, and the portal finds a customer's licenses through it. */
export async function foundByEmail(service: StartedService, email: string, count: number): Promise<void> {
  let last: unknown;
  await within30s(() => `the lookup by email listing ${count} licenses (last answer ${JSON.stringify(last)})`, async () => {
    const found = await api<{ matches: unknown[] }>(service, '/license/find', { app_id: service.appId, query: email });
    last = found.body;
    return found.body.data.matches.length === count ? true : undefined;
  });
}

/** The `count`th message to `email` in the service's outbox, once it is there: the service writes a sign-in email after answering 202. */
export function emailTo(service: StartedService, email: string, count: number): Promise<OutboxMessage> {
  return within30s(() => `email ${count} to ${email} in the outbox`, () => messagesTo(join(service.dataDir, 'outbox'), email)[count - 1]);
}

/** A 30-day license (with `fields`) on a new tier of the service's application: its key. */
export async function newLicense(service: StartedService, fields: Record<string, unknown> = {}): Promise<string> {
  const subscription = await api<{ subscription_id: string }>(service, '/subscription/create', { app_id: service.appId, name: 'Pro', level: 1, single_key_per_hwid: false });
  const created = await api<{ key: string }>(service, '/license/create', {
    app_id: service.appId,
    subscription_id: subscription.body.data.subscription_id,
    duration_unit: 'days',
    duration_value: 30,
    ...fields,
  });
  return created.body.data.key;
}

/** A tab of the application's navigation: screens link to one another too (the licenses screen to Subscriptions). */
export function tab(page: Page, name: string): Locator {
  return page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name, exact: true });
}

/** A fresh browser context on the dashboard, signed in with the service's API key, showing the Licenses screen. */
export async function openDashboard(session: { readonly service: StartedService; readonly browser: Browser }): Promise<{ context: BrowserContext; page: Page }> {
  const context = await session.browser.newContext();
  const page = await context.newPage();
  // A wait is for one screen or answer after one action: about a second on an idle machine, tens of seconds on a busy one.
  page.setDefaultTimeout(30_000);
  await signIn(page, `${session.service.url.replace('127.0.0.1', 'localhost')}/dashboard/`, session.service.apiKey);
  await page.getByRole('heading', { name: 'Licenses' }).waitFor();
  return { context, page };
}

/** The two widths every customer-facing screen is checked at: a laptop's and a phone's. */
export const desktopAndPhone = [
  ['desktop', { width: 1366, height: 900 }],
  ['phone', { width: 390, height: 844 }],
] as const;

/** Fails the test when the page is wider than the window: on a phone, nothing may need a sideways scroll. */
export async function expectNoHorizontalScroll(page: Page, screen: string): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect({ screen, overflow }).toEqual({ screen, overflow: 0 });
}
