import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createDynamoClient, createTable, type Table } from '#data/db';
import { createRepos, type Repos } from '#data/repos';
import { readConfig, type Config } from './config';
import { systemClock, type Clock } from './clock';
import { createLogger, type Logger } from './logger';

/** Everything an action may use; tests pass fakes or a table of their own. */
export interface Deps {
  config: Config;
  logger: Logger;
  clock: Clock;
  table: Table;
  repos: Repos;
}

export function createDeps(config: Config, overrides: { client?: DynamoDBClient; logger?: Logger; clock?: Clock } = {}): Deps {
  const client = overrides.client ?? createDynamoClient(config);
  const table = createTable(client, config.tableName);
  return {
    config,
    logger: overrides.logger ?? createLogger(config.logLevel),
    clock: overrides.clock ?? systemClock,
    table,
    repos: createRepos(table),
  };
}

let lambdaDeps: Deps | undefined;

/** A Lambda builds its deps once per container, from the environment, on first use. */
export function lambdaDepsFromEnv(): Deps {
  lambdaDeps ??= createDeps(readConfig());
  return lambdaDeps;
}
