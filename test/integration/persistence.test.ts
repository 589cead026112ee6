import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readConfig } from '#core/config';
import { createDeps } from '#core/deps';
import { loadMasterKey, localKeyVault } from '#core/key-vault';
import { bootstrap } from '../../functions/admin/owners';
import { ensureTable, startLocalStore } from '../../local/store';
import * as apps from '#data/app.repo';
import { timeFor } from '../support/time';

describe('the local store on disk', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'licensing-store-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('keeps every item across a restart, as npm start does', async () => {
    const config = { ...readConfig({}), tableName: 'licensing' };

    const first = await startLocalStore({ port: 0, dataDir });
    expect(await ensureTable(first.client, config.tableName)).toBe(true);
    const keyVault = localKeyVault(loadMasterKey(dataDir));
    const owner = await bootstrap(createDeps({ ...config, dynamodbEndpoint: first.endpoint }, { client: first.client, keyVault }));
    await first.stop();

    const second = await startLocalStore({ port: 0, dataDir });
    try {
      expect(await ensureTable(second.client, config.tableName)).toBe(false);
      const deps = createDeps({ ...config, dynamodbEndpoint: second.endpoint }, { client: second.client });
      expect(await apps.get(deps.table, owner.app_id)).toMatchObject({ team_id: owner.team_id, status: 'active' });
    } finally {
      await second.stop();
    }
  // Two starts of DynamoDB Local, a Java process: seconds on an idle machine, up to a minute on a busy one.
  }, timeFor(2, 60_000));
});
