import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '#data/keys';
import { startTestServer, type TestServer } from '../support/env';
import { seedLicense, seedSubscription } from '../support/fixtures';
import * as apps from '#data/app.repo';
import * as teams from '#data/team.repo';
import { timeFor } from '../support/time';

const run = promisify(execFile);
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

let env: TestServer;

/** An owner's shell: without the npm_* variables `npm test` hands down, which would carry this run's npm settings into the inner npm. */
const ownerShell = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));

beforeAll(async () => {
  env = await startTestServer();
});
afterAll(() => env.close());

/** The CLI as an owner runs it, against the same store and table as the server. */
async function admin(...args: string[]): Promise<Record<string, string>> {
  const port = new URL(env.config.dynamodbEndpoint!).port;
  const { stdout } = await run(join(root, 'node_modules', '.bin', 'tsx'), [join(root, 'bin', 'admin.ts'), ...args, '--json'], {
    cwd: root,
    env: { ...process.env, DYNAMODB_PORT: port, TABLE_NAME: env.config.tableName },
  });
  return JSON.parse(stdout) as Record<string, string>;
}

const uuid = /^[0-9a-f-]{36}$/;
/** One run of the CLI: a Node process that compiles the CLI with tsx, seconds on an idle machine and tens on a busy one. */
const processRunMs = 20_000;

describe('the admin CLI', () => {
  it('bootstraps an owner whose API key the server accepts, and revokes it', async () => {
    const owner = await admin('bootstrap');
    expect(Object.keys(owner).sort()).toEqual(['api_key', 'app_id', 'team_id']);
    expect(owner.team_id).toMatch(uuid);
    expect(owner.app_id).toMatch(uuid);
    expect(owner.api_key).toMatch(/^lsk_[A-Za-z0-9]{40,}$/);

    const accepted = await env.post('/license/get', '{nope', { 'x-api-key': owner.api_key! });
    expect(accepted.body).toMatchObject({ error_code: 'INVALID_INPUT' });

    await admin('apikey', 'revoke', '--key', owner.api_key!);
    const revoked = await env.post('/license/get', {}, { 'x-api-key': owner.api_key! });
    expect(revoked.body).toMatchObject({ error_code: 'INVALID_API_KEY' });
  }, timeFor(2, processRunMs));

  it('creates teams, apps and keys step by step, storing only the key’s hash', async () => {
    const { team_id } = await admin('team', 'create', '--name', 'Acme', '--plan-expires-at', '2030-01-01T00:00:00Z');
    const { app_id } = await admin('app', 'create', '--team', team_id!, '--name', 'Game');
    const { api_key } = await admin('apikey', 'create', '--team', team_id!);

    const team = await teams.get(env.deps.table, team_id!);
    expect(team).toMatchObject({ name: 'Acme', plan_expires_at: '2030-01-01T00:00:00.000Z' });
    expect(await apps.get(env.deps.table, app_id!)).toMatchObject({ team_id, name: 'Game', status: 'active' });

    const scan = JSON.stringify(await env.deps.table.doc.send(new ScanCommand({ TableName: env.config.tableName })));
    expect(scan).not.toContain(api_key);
  }, timeFor(3, processRunMs));

  it('changes a team’s plan and an app’s status and name', async () => {
    const { team_id } = await admin('team', 'create');
    const { app_id } = await admin('app', 'create', '--team', team_id!);
    await admin('team', 'set-plan', '--team', team_id!, '--plan-expires-at', '2020-01-01T00:00:00Z');
    await admin('app', 'set-status', '--app', app_id!, '--status', 'inactive');
    expect(await admin('app', 'rename', '--app', app_id!, '--name', 'Renamed')).toEqual({ app_id, name: 'Renamed' });
    expect((await teams.get(env.deps.table, team_id!))?.plan_expires_at).toBe('2020-01-01T00:00:00.000Z');
    expect(await apps.get(env.deps.table, app_id!)).toMatchObject({ status: 'inactive', name: 'Renamed' });
    await admin('team', 'set-plan', '--team', team_id!, '--plan-expires-at', 'never');
    expect((await teams.get(env.deps.table, team_id!))?.plan_expires_at).toBeNull();
  }, timeFor(6, processRunMs));

  it('recounts an app’s licenses and repairs the totals /app/stats answers with', async () => {
    const owner = await admin('bootstrap');
    const subscription = await seedSubscription(env.deps, { team_id: owner.team_id!, app_id: owner.app_id!, api_key: owner.api_key!, auth: {} });
    const past = new Date(Date.now() - 86400_000).toISOString();
    await seedLicense(env.deps, subscription);
    await seedLicense(env.deps, subscription, { status: 'paused' });
    await seedLicense(env.deps, subscription, { first_used_at: past, last_login: past, expires_at: past });
    await seedLicense(env.deps, subscription, { first_used_at: past, last_login: past, expires_at: new Date(Date.now() + 86400_000).toISOString() });
    // Counters gone wrong (no events consumer ran here, and one was damaged by hand): the recount replaces them.
    await env.deps.table.doc.send(new PutCommand({ TableName: env.config.tableName, Item: { ...keys.statsTotals(owner.app_id!), licenses: 40, paused: 7 } }));
    await env.deps.table.doc.send(
      new PutCommand({ TableName: env.config.tableName, Item: { ...keys.expiryCount(owner.app_id!, keys.expirySortKey('D', '2020-01-01')), count: 5 } }),
    );

    const expected = { licenses: 4, active: 2, paused: 1, expired: 1, unused: 2 };
    expect(await admin('stats', 'recount', '--app', owner.app_id!)).toEqual({ app_id: owner.app_id, totals: expected });
    const stats = await env.post('/app/stats', { app_id: owner.app_id, days: 1 }, { 'x-api-key': owner.api_key! });
    expect(stats.body.data.totals).toEqual(expected);
    await expect(admin('stats', 'recount', '--app', '00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({ code: 2 });
  }, timeFor(3, processRunMs));

  it('gives each application whose trials were configured before trials had secrets its secret, once (docs/deployment.md, "Upgrading a deployed table")', async () => {
    const owner = await admin('bootstrap');
    const subscription = await seedSubscription(env.deps, { team_id: owner.team_id!, app_id: owner.app_id!, api_key: owner.api_key!, auth: {} });
    // As such an application is stored: a trial setting and no secret.
    const trial = { subscription_id: subscription.subscription_id, duration_seconds: 3600, max_devices: 1, per_ip_per_day: 5 };
    await env.deps.table.doc.send(new UpdateCommand({ TableName: env.config.tableName, Key: keys.app(owner.app_id!), UpdateExpression: 'SET trial = :trial', ExpressionAttributeValues: { ':trial': trial } }));

    expect(await admin('migrate', 'trial-secrets')).toEqual({ apps: 1 });
    const secret = (await apps.get(env.deps.table, owner.app_id!))!.trial_secret;
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await admin('migrate', 'trial-secrets')).toEqual({ apps: 0 });
    expect((await apps.get(env.deps.table, owner.app_id!))!.trial_secret).toBe(secret);
  }, timeFor(3, processRunMs));

  it('exits non-zero with a message on a bad command or an unknown team', async () => {
    await expect(admin('app', 'create')).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('--team is required') });
    await expect(admin('app', 'create', '--team', '00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('No team'),
    });
  }, timeFor(2, processRunMs));

  it('refuses to create an API key on a deployed stack without the usage plan, before calling AWS', async () => {
    await expect(admin('bootstrap', '--table', 'licensing', '--region', 'eu-west-1')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--usage-plan is required'),
    });
  }, timeFor(1, processRunMs));

  it('prints exactly one JSON object on stdout when run through npm, as owners type it (docs/admin-cli.md#machine-readable-output)', async () => {
    const port = new URL(env.config.dynamodbEndpoint!).port;
    const { stdout } = await run('npm', ['run', '-s', 'admin', '--', 'team', 'create', '--json'], {
      cwd: root,
      env: { ...ownerShell, DYNAMODB_PORT: port, TABLE_NAME: env.config.tableName },
    });
    expect(Object.keys(JSON.parse(stdout))).toEqual(['team_id']);
  }, timeFor(1, processRunMs));

  it('leaves npm’s own output as npm makes it: no project setting turns on JSON or silences npm, so `npm ci` prints its summary', async () => {
    // Empty user and global configs: only the repository's settings and npm's defaults count, whatever this machine's ~/.npmrc says.
    const empty = mkdtempSync(join(tmpdir(), 'npmrc-'));
    for (const name of ['user', 'global']) writeFileSync(join(empty, name), '');
    const { stdout } = await run('npm', [`--userconfig=${join(empty, 'user')}`, `--globalconfig=${join(empty, 'global')}`, 'config', 'get', 'json', 'loglevel'], {
      cwd: root,
      env: ownerShell,
    });
    rmSync(empty, { recursive: true });
    expect(stdout.trim().split('\n')).toEqual(['json=false', 'loglevel=notice']);
  }, timeFor(1, processRunMs));
});
