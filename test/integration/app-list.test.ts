import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Clock } from '#shared/clock';
import { keys } from '#data/keys';
import * as owners from '../../functions/admin/owners';
import { createOwner, withOwner } from '../support/owners';
import * as migrations from '#data/migrations';

let now = new Date('2026-05-01T08:00:00.000Z');
const clock: Clock = { now: () => now };

const { env, owner } = withOwner({ clock });

describe('/app/list', () => {
  it("answers the caller team's applications, oldest first, and none of another team's", async () => {
    now = new Date('2026-05-02T08:00:00.000Z');
    const second = await owners.createApp(env.deps, { teamId: owner.team_id, name: 'Second' });
    await owners.setAppStatus(env.deps, { appId: second.app_id, status: 'inactive' });
    const other = await createOwner(env.deps);

    const response = await env.post('/app/list', {}, owner.auth);

    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      success: true,
      data: [
        { app_id: owner.app_id, name: 'My app', status: 'active', created_at: '2026-05-01T08:00:00.000Z' },
        { app_id: second.app_id, name: 'Second', status: 'inactive', created_at: '2026-05-02T08:00:00.000Z' },
      ],
    });
    const theirs = await env.post('/app/list', {}, other.auth);
    expect(theirs.body.data.map((app: { app_id: string }) => app.app_id)).toEqual([other.app_id]);
  });

  it('refuses a field it does not take with INVALID_INPUT, and a missing key with MISSING_AUTH', async () => {
    const extra = await env.post('/app/list', { app_id: owner.app_id }, owner.auth);
    const anonymous = await env.post('/app/list', {});

    expect(extra.status).toBe(400);
    expect(extra.body).toEqual({ error: 'app_id: is not a field of this route', error_code: 'INVALID_INPUT' });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error_code).toBe('MISSING_AUTH');
  });

  it('lists an application stored before applications were indexed per team once indexUnlisted has run', async () => {
    const team = await owners.createTeam(env.deps, {});
    const apiKey = await owners.createApiKey(env.deps, { teamId: team.team_id });
    const legacy = { app_id: '11111111-1111-4111-8111-111111111111', team_id: team.team_id, name: 'Old', status: 'active', created_at: '2025-01-01T00:00:00.000Z' };
    await env.deps.table.doc.send(new PutCommand({ TableName: env.config.tableName, Item: { ...keys.app(legacy.app_id), ...legacy } }));
    const auth = { 'x-api-key': apiKey.api_key };
    expect((await env.post('/app/list', {}, auth)).body.data).toEqual([]);

    const indexed = await migrations.indexUnlisted(env.deps.table);
    const again = await migrations.indexUnlisted(env.deps.table);

    expect(indexed).toBe(1);
    expect(again).toBe(0);
    const { team_id: _team, ...listed } = legacy;
    expect((await env.post('/app/list', {}, auth)).body.data).toEqual([listed]);
  });
});
