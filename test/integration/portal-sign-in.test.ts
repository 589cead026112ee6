import { createFakeClock } from '../support/clock';
import { messagesTo, outboxMessages } from '../support/outbox';
import { createOwner } from '../support/owners';
import { bearer, lastCode, licensesOf, portalOwner, signedInToken, withPortalServer } from '../support/portal';
import { signInAnswerMs } from '../../functions/portal/sign-in';
import { timeFor } from '../support/time';

/** Signing in to the customer portal (docs/portal.md#signing-in) through the local server: codes from the test's outbox. */
const clock = createFakeClock(new Date('2026-06-01T10:00:00.000Z'));
const { env, events } = withPortalServer(clock);

const signIn = (appId: string, email: string) => env.post('/portal/sign-in', { app_id: appId, email });
const verify = (appId: string, email: string, code: string) => env.post('/portal/verify', { app_id: appId, email, code });
const wrongOf = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

describe('the portal before sign-in', () => {
  it('brands the sign-in page of an application whose portal is on, and answers 403 PORTAL_DISABLED for one that is off or unknown', async () => {
    const owner = await portalOwner(env, { sender_name: 'Acme', support_url: 'https://acme.example/help', allow_license_files: false });
    const branding = await env.post('/portal/app', { app_id: owner.app_id });
    expect([branding.status, branding.body]).toEqual([200, { success: true, data: { name: 'My app', sender_name: 'Acme', support_url: 'https://acme.example/help', allow_device_release: true, allow_license_files: false } }]);

    const off = await createOwner(env.deps);
    for (const appId of [off.app_id, '00000000-0000-4000-8000-000000000000']) {
      for (const [path, body] of [['/portal/app', {}], ['/portal/sign-in', { email: 'a@example.com' }], ['/portal/verify', { email: 'a@example.com', code: '123456' }]] as const) {
        const refused = await env.post(path, { app_id: appId, ...body });
        expect([path, refused.status, refused.body]).toEqual([path, 403, { error: 'The customer portal is not on for this application', error_code: 'PORTAL_DISABLED' }]);
      }
    }
  });

  it('refuses a malformed body with 400 INVALID_INPUT naming the field', async () => {
    const owner = await portalOwner(env);
    const badEmail = await signIn(owner.app_id, 'not-an-address');
    expect([badEmail.status, badEmail.body.error_code, badEmail.body.error]).toEqual([400, 'INVALID_INPUT', 'email: must be an email address']);
    const badCode = await verify(owner.app_id, 'a@example.com', '12345');
    expect([badCode.status, badCode.body.error_code]).toEqual([400, 'INVALID_INPUT']);
    expect(badCode.body.error).toMatch(/^code: /);
  });
});

describe('signing in by emailed code', () => {
  it('emails a code and a link to an email with licenses, nothing to one without, and answers both the same', async () => {
    const owner = await portalOwner(env, { sender_name: 'Acme Tools' });
    await licensesOf(env, events, owner, 'ann@example.com');
    const before = outboxMessages(env.outbox).length;

    const known = await signIn(owner.app_id, '  Ann@Example.com ');
    const unknown = await signIn(owner.app_id, 'nobody@example.com');

    expect([known.status, known.body]).toEqual([202, { success: true }]);
    expect([unknown.status, unknown.body]).toEqual([202, { success: true }]);
    expect(outboxMessages(env.outbox).length).toBe(before + 1);
    const [message] = messagesTo(env.outbox, 'ann@example.com');
    const code = lastCode(env, 'ann@example.com');
    expect(message!.from).toMatch(/^"Acme Tools" </);
    expect(message!.subject).toBe('Your sign-in code for My app');
    expect(message!.text).toContain(`${env.deps.config.portalUrl}?app=${owner.app_id}#code=${code}`);
    expect(message!.html).toContain(`#code=${code}`);
    expect(messagesTo(env.outbox, 'nobody@example.com')).toEqual([]);
  });

  it('answers a session of one hour for the right code, which works once; a new code replaces the last', async () => {
    const owner = await portalOwner(env);
    await licensesOf(env, events, owner, 'bea@example.com');
    await signIn(owner.app_id, 'bea@example.com');
    const first = lastCode(env, 'bea@example.com');
    await signIn(owner.app_id, 'bea@example.com');
    const second = lastCode(env, 'bea@example.com');

    const replaced = await verify(owner.app_id, 'bea@example.com', first);
    const right = await verify(owner.app_id, 'bea@example.com', second);
    const again = await verify(owner.app_id, 'bea@example.com', second);

    if (first !== second) expect([replaced.status, replaced.body.error_code]).toEqual([401, 'INVALID_CODE']);
    expect(right.status).toBe(200);
    expect(right.body.data).toEqual({ token: expect.stringMatching(/^lps_[A-Za-z0-9]{43}$/), expires_at: new Date(clock.now().getTime() + 3600_000).toISOString() });
    expect([again.status, again.body]).toEqual([401, { error: 'The code is wrong or has expired; ask for a new one', error_code: 'INVALID_CODE' }]);
  });

  it('burns a code on its fifth wrong try: four wrong tries leave it usable, five do not', async () => {
    const owner = await portalOwner(env);
    await licensesOf(env, events, owner, 'cy@example.com');
    await licensesOf(env, events, owner, 'di@example.com');
    await signIn(owner.app_id, 'cy@example.com');
    await signIn(owner.app_id, 'di@example.com');
    const cyCode = lastCode(env, 'cy@example.com');
    const diCode = lastCode(env, 'di@example.com');

    for (let attempt = 0; attempt < 4; attempt++) expect((await verify(owner.app_id, 'cy@example.com', wrongOf(cyCode))).status).toBe(401);
    expect((await verify(owner.app_id, 'cy@example.com', cyCode)).status).toBe(200);
    for (let attempt = 0; attempt < 5; attempt++) expect((await verify(owner.app_id, 'di@example.com', wrongOf(diCode))).body.error_code).toBe('INVALID_CODE');
    expect((await verify(owner.app_id, 'di@example.com', diCode)).body.error_code).toBe('INVALID_CODE');
  });

  it('counts racing wrong tries exactly: of 12 at once, 5 burn the code and the right one then fails', async () => {
    const owner = await portalOwner(env);
    await licensesOf(env, events, owner, 'race@example.com');
    await signIn(owner.app_id, 'race@example.com');
    const code = lastCode(env, 'race@example.com');
    const answers = await Promise.all(Array.from({ length: 12 }, () => verify(owner.app_id, 'race@example.com', wrongOf(code))));
    expect(answers.map((answer) => answer.status)).toEqual(Array(12).fill(401));
    expect((await verify(owner.app_id, 'race@example.com', code)).body.error_code).toBe('INVALID_CODE');
  });

  it('lets a code expire after 10 minutes', async () => {
    const owner = await portalOwner(env);
    await licensesOf(env, events, owner, 'eve@example.com');
    await signIn(owner.app_id, 'eve@example.com');
    clock.advance(600);
    expect((await verify(owner.app_id, 'eve@example.com', lastCode(env, 'eve@example.com'))).body.error_code).toBe('INVALID_CODE');
  });

  it('announces portal.signed_in as the customer, by the email\'s fingerprint, never the address', async () => {
    const owner = await portalOwner(env);
    await licensesOf(env, events, owner, 'fay@example.com');
    await events.drain();
    const seen = events.delivered.length;
    await signedInToken(env, owner, 'fay@example.com');
    await events.drain();
    const [signedIn, ...rest] = events.delivered.slice(seen);
    expect(rest).toEqual([]);
    expect(signedIn).toMatchObject({ type: 'portal.signed_in', app_id: owner.app_id, subject: expect.stringMatching(/^[0-9a-f]{16}$/), actor: `customer:${signedIn!.subject}`, after: { email_fingerprint: signedIn!.subject } });
    expect(JSON.stringify(signedIn)).not.toContain('fay@');
    const audited = await env.post('/audit/get-bulk', { app_id: owner.app_id, type: 'portal.signed_in' }, owner.auth);
    expect(audited.body.data).toMatchObject([{ id: signedIn!.id, type: 'portal.signed_in', actor: signedIn!.actor }]);
  });
});

describe('sessions', () => {
  it('end at once on sign-out, and after an hour', async () => {
    const owner = await portalOwner(env);
    await licensesOf(env, events, owner, 'gus@example.com');
    const token = await signedInToken(env, owner, 'gus@example.com');
    expect(await env.post('/portal/sign-out', {}, bearer(token))).toMatchObject({ status: 200, body: { success: true } });
    const ended = await env.post('/portal/sign-out', {}, bearer(token));
    expect([ended.status, ended.body]).toEqual([401, { error: 'Not signed in, or the session has ended; sign in again', error_code: 'INVALID_SESSION' }]);

    const later = await signedInToken(env, owner, 'gus@example.com');
    clock.advance(3599);
    const stillOn = await signedInToken(env, owner, 'gus@example.com');
    clock.advance(1);
    expect((await env.post('/portal/sign-out', {}, bearer(later))).body.error_code).toBe('INVALID_SESSION');
    expect((await env.post('/portal/sign-out', {}, bearer(stillOn))).status).toBe(200);
  });

  it('refuse a missing, malformed or unknown token with 401 INVALID_SESSION', async () => {
    for (const headers of [{} as Record<string, string>, { authorization: 'Bearer' }, { authorization: 'Basic abc' }, { authorization: `Bearer lps_${'x'.repeat(42)}` }, { authorization: `Bearer lps_${'x'.repeat(43)}` }]) {
      const answer = await env.post('/portal/sign-out', {}, headers);
      expect([answer.status, answer.body.error_code]).toEqual([401, 'INVALID_SESSION']);
    }
  });
});

describe('limits', () => {
  it('allows 5 sign-ins per email in an hour, counted whether or not an email went out, then 429 RATE_LIMITED with Retry-After', async () => {
    const owner = await portalOwner(env);
    await licensesOf(env, events, owner, 'hal@example.com');
    for (const email of ['hal@example.com', 'ivy@example.com']) {
      for (let attempt = 0; attempt < 5; attempt++) {
        expect((await signIn(owner.app_id, email)).status).toBe(202);
        clock.advance(60);
      }
      const limited = await signIn(owner.app_id, email);
      expect([limited.status, limited.body.error_code]).toEqual([429, 'RATE_LIMITED']);
      // The first of the five leaves the hour 3600 - 5 * 60 seconds from now.
      expect(limited.headers.get('retry-after')).toBe(String(3600 - 300));
      clock.advance(3600 - 300);
      expect((await signIn(owner.app_id, email)).status).toBe(202);
    }
    expect(messagesTo(env.outbox, 'hal@example.com')).toHaveLength(6);
    expect(messagesTo(env.outbox, 'ivy@example.com')).toHaveLength(0);
  });

  it('allows 30 sign-ins per source address in an hour, whatever the emails', async () => {
    const owner = await portalOwner(env);
    for (let index = 0; index < 30; index++) expect((await signIn(owner.app_id, `person${index}@example.com`)).status).toBe(202);
    const limited = await signIn(owner.app_id, 'person30@example.com');
    expect([limited.status, limited.body.error_code, limited.headers.get('retry-after')]).toEqual([429, 'RATE_LIMITED', '3600']);
  }, timeFor(31));

  it('holds both limits under racing sign-ins: 12 at once of one email make 5, 40 at once of others make 30 with the address', async () => {
    const owner = await portalOwner(env);
    const sameEmail = await Promise.all(Array.from({ length: 12 }, () => signIn(owner.app_id, 'jo@example.com')));
    expect(sameEmail.filter((answer) => answer.status === 202)).toHaveLength(5);
    expect(sameEmail.filter((answer) => answer.status === 429)).toHaveLength(7);
    const manyEmails = await Promise.all(Array.from({ length: 40 }, (_, index) => signIn(owner.app_id, `crowd${index}@example.com`)));
    expect(manyEmails.filter((answer) => answer.status === 202)).toHaveLength(25);
    expect(manyEmails.filter((answer) => answer.status === 429)).toHaveLength(15);
  }, timeFor(52));
});

describe('enumeration', () => {
  it('takes about as long for an email with licenses as for one without (medians of 15 each, alternating)', async () => {
    const owner = await portalOwner(env);
    const timings = { known: [] as number[], unknown: [] as number[] };
    for (let round = 0; round < 15; round++) {
      // A fresh email each time, and a fresh hour every few: the limits are not what is measured.
      if (round % 7 === 6) clock.advance(3600);
      const known = `known${round}@example.com`;
      await licensesOf(env, events, owner, known);
      for (const [kind, email] of [['known', known], ['unknown', `unknown${round}@example.com`]] as const) {
        const started = performance.now();
        const answer = await signIn(owner.app_id, email);
        timings[kind].push(performance.now() - started);
        expect([answer.status, answer.body]).toEqual([202, { success: true }]);
      }
    }
    const [known, unknown] = [median(timings.known), median(timings.unknown)];
    expect(Math.min(known, unknown)).toBeGreaterThanOrEqual(signInAnswerMs);
    expect(known / unknown).toBeGreaterThan(0.5);
    expect(known / unknown).toBeLessThan(2);
  }, timeFor(60));
});
