import { parseArgs } from 'node:util';
import { readConfig, readLocalConfig } from '#core/config';
import { createDeps, forRequest, type Deps } from '#core/deps';
import { loadMasterKey, localKeyVault } from '#core/key-vault';
import { createKmsClient, kmsKeyVault } from '#core/signing/kms-vault';
import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { createDynamoClient } from '#data/db';
import * as maintenance from '../functions/admin/maintenance';
import * as owners from '../functions/admin/owners';
import { usageKeyRegistrar } from '../functions/admin/usage-keys';
import { ensureTable, externalStore, startLocalStore, type Store } from '../local/store';
import * as migrations from '#data/migrations';

const usage = `Usage: npm run admin -- <command> [options]

  bootstrap [--json]                                 team + active app + API key
  team create [--name N] [--plan-expires-at ISO] [--json]
  team set-plan --team ID --plan-expires-at ISO|never
  app create --team ID [--name N] [--json]
  app set-status --app ID --status active|inactive
  app rename --app ID --name N
  app index                                          list apps made before /app/list (once per table)
  app signing-key --app ID [--json]                  the app's public signing key
  app rotate-signing-key --app ID [--json]           new key pair; prints the new public key
  apikey create --team ID [--json]
  apikey revoke --key KEY
  stats recount --app ID [--json]                    count the app's licenses again, repair /app/stats totals
  migrate license-index [--json]                     after upgrading a table from before gsi2 (docs/deployment.md)
  migrate lookup-entries [--json]                    after upgrading a table from before /license/find (docs/deployment.md)
  migrate trial-secrets [--json]                     after upgrading a table from before trials had secrets (docs/deployment.md)

Target: the local store (DYNAMODB_PORT, DATA_DIR; started for the command when
npm start is not running), the store at DYNAMODB_ENDPOINT when it is set (table
TABLE_NAME, created when missing), or a deployed stack with --table NAME [--region R]
(or TABLE_NAME / AWS_REGION with --aws). On a deployed stack, bootstrap and
apikey create also need --usage-plan ID (the stack output UsagePlanId): the
owner's API Gateway key is created and attached to the usage plan; commands that
make signing keys (bootstrap, app create, app signing-key, app rotate-signing-key)
need SIGNING_KMS_KEY_ID (the stack output SigningKmsKeyArn). Locally, private
keys are encrypted with DATA_DIR/master.key.`;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    json: { type: 'boolean', default: false },
    name: { type: 'string' },
    'plan-expires-at': { type: 'string' },
    team: { type: 'string' },
    app: { type: 'string' },
    status: { type: 'string' },
    key: { type: 'string' },
    table: { type: 'string' },
    region: { type: 'string' },
    aws: { type: 'boolean', default: false },
    'usage-plan': { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

class UsageError extends Error {}

function required(name: 'team' | 'app' | 'status' | 'key' | 'plan-expires-at' | 'usage-plan'): string {
  const value = values[name];
  if (!value) throw new UsageError(`--${name} is required`);
  return value;
}

function instant(raw: string): string {
  const time = Date.parse(raw);
  if (Number.isNaN(time)) throw new UsageError(`not an ISO 8601 time: ${raw}`);
  return new Date(time).toISOString();
}

type UsageKeys = ((teamId: string) => Promise<string>) | undefined;

async function run(deps: Deps, registerUsageKey: UsageKeys): Promise<Record<string, unknown>> {
  const command = positionals.join(' ');
  switch (command) {
    case 'bootstrap':
      return owners.bootstrap(deps, { registerUsageKey });
    case 'team create':
      return owners.createTeam(deps, { name: values.name, planExpiresAt: values['plan-expires-at'] ? instant(values['plan-expires-at']) : null });
    case 'team set-plan': {
      const raw = required('plan-expires-at');
      return owners.setTeamPlan(deps, { teamId: required('team'), planExpiresAt: raw === 'never' ? null : instant(raw) });
    }
    case 'app create':
      return owners.createApp(deps, { teamId: required('team'), name: values.name });
    case 'app set-status': {
      const status = required('status');
      if (status !== 'active' && status !== 'inactive') throw new UsageError('--status must be active or inactive');
      return owners.setAppStatus(deps, { appId: required('app'), status });
    }
    case 'app rename':
      if (!values.name) throw new UsageError('--name is required');
      return owners.renameApp(deps, { appId: required('app'), name: values.name });
    case 'stats recount':
      return maintenance.recountStats(deps, { appId: required('app') });
    case 'migrate license-index':
      return maintenance.migrateLicenseIndex(deps);
    case 'migrate lookup-entries':
      return maintenance.migrateLookupEntries(deps);
    case 'migrate trial-secrets':
      return maintenance.migrateTrialSecrets(deps);
    case 'app index':
      return { indexed: await migrations.indexUnlisted(deps.table) };
    case 'app signing-key':
      return owners.showSigningKey(deps, { appId: required('app') });
    case 'app rotate-signing-key':
      return owners.rotateAppSigningKey(deps, { appId: required('app') });
    case 'apikey create':
      return owners.createApiKey(deps, { teamId: required('team'), registerUsageKey });
    case 'apikey revoke':
      return owners.revokeApiKey(deps, { apiKey: required('key') });
    default:
      throw new UsageError(command ? `unknown command: ${command}` : 'no command given');
  }
}

function print(result: Record<string, unknown>) {
  if (values.json) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  for (const [name, value] of Object.entries(result)) {
    process.stdout.write(`${name}: ${typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value)}\n`);
  }
  if ('api_key' in result) process.stdout.write('The API key is shown only this once; only its SHA-256 is stored.\n');
}

/**
 * The store at DYNAMODB_ENDPOINT when it is set; otherwise reuses the running
 * local store when npm start is up, or runs one over the same data directory.
 */
async function localDeps(): Promise<{ deps: Deps; store?: Store }> {
  const config = readConfig();
  const keyVault = localKeyVault(loadMasterKey(readLocalConfig().dataDir));
  if (config.dynamodbEndpoint) {
    const store = externalStore({ ...config, dynamodbEndpoint: config.dynamodbEndpoint });
    await ensureTable(store.client, config.tableName);
    return { deps: createDeps({ ...config, logLevel: 'silent' }, { client: store.client, keyVault }), store };
  }
  const local = readLocalConfig();
  const endpoint = `http://127.0.0.1:${local.dynamodbPort}`;
  const probe = createDynamoClient({ region: config.region, dynamodbEndpoint: endpoint });
  try {
    await ensureTable(probe, config.tableName);
    return { deps: createDeps({ ...config, dynamodbEndpoint: endpoint, logLevel: 'silent' }, { client: probe, keyVault }) };
  } catch (error) {
    probe.destroy();
    if (!(error instanceof Error) || !/ECONNREFUSED|connect/i.test(`${error.name} ${error.message}`)) throw error;
  }
  const store = await startLocalStore({ port: local.dynamodbPort, dataDir: local.dataDir });
  await ensureTable(store.client, config.tableName);
  return { deps: createDeps({ ...config, dynamodbEndpoint: store.endpoint, logLevel: 'silent' }, { client: store.client, keyVault }), store };
}

function awsDeps(): Deps {
  const config = readConfig();
  const region = values.region ?? config.region;
  // Made only when a command encrypts: commands that make no key need no KMS key id.
  const keyVault = config.signingKmsKeyId ? kmsKeyVault(createKmsClient(region), config.signingKmsKeyId) : undefined;
  return createDeps(
    {
      ...config,
      tableName: values.table ?? config.tableName,
      region,
      dynamodbEndpoint: undefined,
      logLevel: 'silent',
    },
    { keyVault },
  );
}

async function main(): Promise<number> {
  if (values.help) {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  const onAws = Boolean(values.table || values.aws);
  const createsKey = ['bootstrap', 'apikey create'].includes(positionals.join(' '));
  const registerUsageKey: UsageKeys =
    onAws && createsKey ? usageKeyRegistrar(new APIGatewayClient({ region: values.region ?? readConfig().region }), required('usage-plan')) : undefined;
  const { deps, store } = onAws ? { deps: awsDeps(), store: undefined } : await localDeps();
  try {
    // Changes made here show in events and the audit log as the operator's.
    print(await run(forRequest(deps, undefined, 'admin'), registerUsageKey));
    return 0;
  } finally {
    await store?.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`admin: ${message}\n`);
    if (error instanceof UsageError) process.stderr.write(`\n${usage}\n`);
    process.exit(error instanceof UsageError || error instanceof owners.AdminError ? 2 : 1);
  },
);
