import { createDeps } from '#core/deps';
import { createLogger } from '#core/logger';
import { newId, sha256Hex } from '#core/ids';
import { startLocalServer, type LocalServer } from '../../local/server';
import { firstOnly, loseAnswers } from '../support/dynamo-faults';
import { createTestClient, request, startTestServer, type TestServer } from '../support/env';
import { startTestEvents, type TestEvents } from '../support/events';
import { seedLicense, seedSubscription } from '../support/fixtures';
import { createOwner, type Owner } from '../support/owners';
import { docsVerifier, postRaw } from '../support/verifier';
import * as apps from '#data/app.repo';

let env: TestServer;
let events: TestEvents;
let owner: Owner;
let other: Owner;
const servers: LocalServer[] = [];

beforeAll(async () => {
  env = await startTestServer({ config: { cacheTtlSeconds: 0 } });
  events = await startTestEvents(env);
  owner = await createOwner(env.deps);
  other = await createOwner(env.deps);
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  await events.stop();
  await env.close();
});

const actor = (o: Owner) => `api_key:${sha256Hex(o.api_key).slice(0, 8)}`;

/** A server over the test table whose DynamoDB client loses the first answer to `commandName` after the store applied it. */
async function serverLosingFirst(commandName: string) {
  const client = createTestClient(env.config);
  const loss = loseAnswers(client, commandName, firstOnly);
  const server = await startLocalServer({ deps: createDeps(env.config, { client, keyVault: env.deps.keyVault, logger: createLogger('silent') }), port: 0 });
  servers.push(server);
  return { loss, post: (path: string, body: Record<string, unknown>) => request(server.url, path, 'POST', body, owner.auth) };
}

describe('POST /app/create', () => {
  it('makes an active application of the caller\'s team with a signing key that signs its /auth answers, listed by /app/list', async () => {
    const created = await env.post('/app/create', { name: '  Second app ' }, owner.auth);

    expect(created.status).toBe(200);
    expect(created.body.data).toMatchObject({ name: 'Second app', status: 'active', signing_key: { algorithm: 'ed25519' } });
    const appId = created.body.data.app_id;
    expect((await apps.get(env.deps.table, appId))?.team_id).toBe(owner.team_id);
    expect((await env.post('/app/list', {}, owner.auth)).body.data.map((app: { app_id: string }) => app.app_id)).toContain(appId);
    expect((await env.post('/app/list', {}, other.auth)).body.data.map((app: { app_id: string }) => app.app_id)).not.toContain(appId);
    const { verifyAnswer } = await docsVerifier();
    const answer = await postRaw(env.server.url, '/auth', { app_id: appId, license: 'NOPE-NOPE' });
    expect(() => verifyAnswer(answer, { jwk: created.body.data.signing_key.jwk })).not.toThrow();
  });

  it('answers the same application to a request sent again with the same request_id, and a new one to another team', async () => {
    const request_id = newId();
    const first = await env.post('/app/create', { name: 'Once', request_id }, owner.auth);
    const again = await env.post('/app/create', { name: 'Once', request_id }, owner.auth);
    const otherTeam = await env.post('/app/create', { name: 'Once', request_id }, other.auth);

    expect(again.body.data).toEqual(first.body.data);
    expect(otherTeam.body.data.app_id).not.toBe(first.body.data.app_id);
    const named = (await env.post('/app/list', {}, owner.auth)).body.data.filter((app: { name: string }) => app.name === 'Once');
    expect(named).toHaveLength(1);
  });

  it('writes one application when the store\'s answer to its put is lost after the write', async () => {
    const losing = await serverLosingFirst('PutItemCommand');
    const created = await losing.post('/app/create', { name: 'Lost answer' });

    expect(losing.loss.lost()).toBe(1);
    expect(created.status).toBe(200);
    const named = (await env.post('/app/list', {}, owner.auth)).body.data.filter((app: { name: string }) => app.name === 'Lost answer');
    expect(named).toEqual([expect.objectContaining({ app_id: created.body.data.app_id })]);
  });

  it.each([
    [{}, 'name'],
    [{ name: '   ' }, 'name'],
    [{ name: 'x'.repeat(101) }, 'name'],
    [{ name: 7 }, 'name'],
    [{ name: 'ok', request_id: '' }, 'request_id'],
  ])('answers 400 INVALID_INPUT naming the field for %j', async (body, field) => {
    const answer = await env.post('/app/create', body, owner.auth);

    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ error: expect.stringMatching(new RegExp(`^${field}: `)), error_code: 'INVALID_INPUT' });
  });
});

describe('POST /app/update', () => {
  it('renames, makes inactive (its /auth answers APPLICATION_NOT_ACTIVE) and active again, each an app.updated event by the caller', async () => {
    const { app_id } = (await env.post('/app/create', { name: 'To change' }, owner.auth)).body.data;
    const license = await seedLicense(env.deps, await seedSubscription(env.deps, { ...owner, app_id }));

    const renamed = await env.post('/app/update', { app_id, name: 'Changed' }, owner.auth);
    const paused = await env.post('/app/update', { app_id, status: 'inactive' }, owner.auth);
    const refused = await env.post('/auth', { app_id, license: license.key });
    const welcomeBack = async () => (await env.post('/auth', { app_id, license: license.key })).body.success;
    const resumed = await env.post('/app/update', { app_id, status: 'active', name: 'Changed' }, owner.auth);

    expect(renamed.body.data).toMatchObject({ app_id, name: 'Changed', status: 'active' });
    expect(paused.body.data).toMatchObject({ app_id, name: 'Changed', status: 'inactive' });
    expect(refused.body).toMatchObject({ success: false, message: 'APPLICATION_NOT_ACTIVE' });
    expect(resumed.body.data).toMatchObject({ name: 'Changed', status: 'active' });
    expect(await welcomeBack()).toBe(true);
    await events.drain();
    const audit = await env.post('/audit/get-bulk', { app_id, type: 'app.updated' }, owner.auth);
    expect(audit.body.data.map((event: any) => [event.actor, event.before.status, event.after.status, event.before.name, event.after.name])).toEqual([
      [actor(owner), 'inactive', 'active', 'Changed', 'Changed'],
      [actor(owner), 'active', 'inactive', 'Changed', 'Changed'],
      [actor(owner), 'active', 'active', 'To change', 'Changed'],
    ]);
  });

  it('answers ACCESS_DENIED for another owner\'s application and changes nothing', async () => {
    const denied = await env.post('/app/update', { app_id: other.app_id, name: 'Taken over' }, owner.auth);

    expect(denied.status).toBe(403);
    expect(denied.body.error_code).toBe('ACCESS_DENIED');
    expect((await apps.get(env.deps.table, other.app_id))?.name).toBe('My app');
  });

  it.each([
    [{ app_id: 'not-a-uuid', name: 'x' }, 'app_id'],
    [{ name: 'x' }, 'app_id'],
    [{ app_id: '00000000-0000-4000-8000-000000000000' }, ''],
    [{ app_id: '00000000-0000-4000-8000-000000000000', status: 'paused' }, 'status'],
    [{ app_id: '00000000-0000-4000-8000-000000000000', name: '' }, 'name'],
  ])('answers 400 INVALID_INPUT for %j', async (body, field) => {
    const answer = await env.post('/app/update', body, owner.auth);

    expect(answer.status).toBe(400);
    expect(answer.body.error_code).toBe('INVALID_INPUT');
    if (field) expect(answer.body.error).toMatch(new RegExp(`^${field}: `));
    else expect(answer.body.error).toMatch(/at least one of name, status/);
  });

  it('answers APP_NOT_FOUND for an unknown application', async () => {
    expect((await env.post('/app/update', { app_id: newId(), status: 'active' }, owner.auth)).body.error_code).toBe('APP_NOT_FOUND');
  });

  it('changes the application once when the store\'s answer to its update is lost after the write', async () => {
    const { app_id } = (await env.post('/app/create', { name: 'Before' }, owner.auth)).body.data;
    const losing = await serverLosingFirst('UpdateItemCommand');

    const answer = await losing.post('/app/update', { app_id, name: 'After', status: 'inactive' });

    expect(losing.loss.lost()).toBe(1);
    expect(answer.body.data).toMatchObject({ app_id, name: 'After', status: 'inactive' });
    expect(await apps.get(env.deps.table, app_id)).toMatchObject({ name: 'After', status: 'inactive' });
  });
});

describe('POST /app/rotate-signing-key', () => {
  it('replaces the key: answers are signed by the new key only, and the rotation is an app.signing_key_rotated event', async () => {
    const created = (await env.post('/app/create', { name: 'Rotating' }, owner.auth)).body.data;
    const rotated = await env.post('/app/rotate-signing-key', { app_id: created.app_id }, owner.auth);

    expect(rotated.status).toBe(200);
    expect(rotated.body.data.key_id).not.toBe(created.signing_key.key_id);
    expect((await env.post('/app/signing-key', { app_id: created.app_id }, owner.auth)).body.data).toEqual(rotated.body.data);
    const { verifyAnswer } = await docsVerifier();
    const answer = await postRaw(env.server.url, '/auth', { app_id: created.app_id, license: 'NOPE-NOPE' });
    expect(() => verifyAnswer(answer, { jwk: rotated.body.data.jwk })).not.toThrow();
    expect(() => verifyAnswer(answer, { jwk: created.signing_key.jwk })).toThrow();
    await events.drain();
    const audit = await env.post('/audit/get-bulk', { app_id: created.app_id, type: 'app.signing_key_rotated' }, owner.auth);
    expect(audit.body.data).toEqual([
      expect.objectContaining({ actor: actor(owner), before: { key_id: created.signing_key.key_id }, after: { key_id: rotated.body.data.key_id } }),
    ]);
  });

  it('answers ACCESS_DENIED for another owner\'s application and keeps its key', async () => {
    const before = (await apps.get(env.deps.table, other.app_id))?.signing_key?.key_id;
    const denied = await env.post('/app/rotate-signing-key', { app_id: other.app_id }, owner.auth);

    expect(denied.status).toBe(403);
    expect(denied.body.error_code).toBe('ACCESS_DENIED');
    expect((await apps.get(env.deps.table, other.app_id))?.signing_key?.key_id).toBe(before);
  });

  it('answers 400 INVALID_INPUT without a UUID app_id', async () => {
    const answer = await env.post('/app/rotate-signing-key', { app_id: 'x' }, owner.auth);

    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatch(/^app_id: /);
  });

  it('stores the key it answers when the store\'s answer to the rotation is lost after the write', async () => {
    const { app_id } = (await env.post('/app/create', { name: 'Rotating, lost' }, owner.auth)).body.data;
    const losing = await serverLosingFirst('UpdateItemCommand');

    const rotated = await losing.post('/app/rotate-signing-key', { app_id });

    expect(losing.loss.lost()).toBe(1);
    expect((await apps.get(env.deps.table, app_id))?.signing_key?.key_id).toBe(rotated.body.data.key_id);
  });
});
