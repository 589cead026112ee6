import type { Config } from '#core/config';
import type { Clock } from '#shared/clock';
import { startTestEvents, type TestEvents } from './events';
import { startTestServer, type TestServer } from './env';
import { seedLicense, seedSubscription } from './fixtures';
import { messagesTo } from './outbox';
import { createOwner, madeBeforeAll, type Owner } from './owners';
import type { License } from '#data/model/license';

/**
 * A test server on `clock` with the events consumer over its stream (which writes the lookup entries
 * that find licenses by email), both made before the file's tests and stopped after them. `config` is
 * read as the server starts, after the file's earlier beforeAll hooks (a stand-in's address, say).
 */
export function withPortalServer(clock: Clock, config: () => Partial<Config> = () => ({})): { env: TestServer; events: TestEvents } {
  const env = madeBeforeAll(() => startTestServer({ clock, config: { cacheTtlSeconds: 0, ...config() } }));
  const events = madeBeforeAll(() => startTestEvents(env));
  afterAll(async () => {
    await events.stop();
    await env.close();
  });
  return { env, events };
}

/** An owner whose application's portal is on (`portal` as sent to /app/settings, on unless it says otherwise). */
export async function portalOwner(env: TestServer, portal: Record<string, unknown> = {}): Promise<Owner> {
  const owner = await createOwner(env.deps);
  const answer = await env.post('/app/settings', { app_id: owner.app_id, portal: { enabled: true, ...portal } }, owner.auth);
  if (answer.status !== 200) throw new Error(`portal not switched on: ${JSON.stringify(answer.body)}`);
  return owner;
}

/** Licenses of the owner's application carrying `email`, their lookup entries written (the events consumer drained). */
export async function licensesOf(env: TestServer, events: TestEvents, owner: Owner, email: string, count = 1, overrides: Partial<License> = {}): Promise<License[]> {
  const subscription = await seedSubscription(env.deps, owner);
  const made: License[] = [];
  for (let index = 0; index < count; index++) made.push(await seedLicense(env.deps, subscription, { email, ...overrides }));
  await events.drain();
  return made;
}

/** The code of the last sign-in email `email` received, from the test's outbox. */
export function lastCode(env: TestServer, email: string): string {
  const message = messagesTo(env.outbox, email).at(-1);
  const code = message && /: (\d{6})\n/.exec(message.text)?.[1];
  if (!code) throw new Error(`no sign-in code was emailed to ${email}`);
  return code;
}

/** Signs `email` in to the owner's application through the routes, code read from the outbox: the session's token. */
export async function signedInToken(env: TestServer, owner: Owner, email: string): Promise<string> {
  const asked = await env.post('/portal/sign-in', { app_id: owner.app_id, email });
  if (asked.status !== 202) throw new Error(`sign-in answered ${asked.status} ${JSON.stringify(asked.body)}`);
  const verified = await env.post('/portal/verify', { app_id: owner.app_id, email, code: lastCode(env, email) });
  if (verified.status !== 200) throw new Error(`verify answered ${verified.status} ${JSON.stringify(verified.body)}`);
  return verified.body.data.token as string;
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** An activation request (`lfr1.…`) as an offline computer makes one. */
export const activationRequest = (fields: { app_id: string; license: string; hwid: string; nonce?: string }) =>
  `lfr1.${Buffer.from(JSON.stringify({ nonce: 'request-nonce-0001', ...fields })).toString('base64url')}`;
