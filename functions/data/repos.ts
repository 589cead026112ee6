import type { ItemCache } from './item-cache';
import { createApiKeyRepo } from './api-key.repo';
import { createAppRepo } from './app.repo';
import { createAuthRepo } from './auth.repo';
import { createBlacklistRepo } from './blacklist.repo';
import { createBulkRequestRepo } from './bulk-request.repo';
import { createCredentialsRepo } from './credentials.repo';
import { createEventsRepo } from './events.repo';
import type { Table } from './db';
import { createLookupRepo } from './lookup.repo';
import { createHwidRepo } from './hwid.repo';
import { createLeaseRepo } from './lease.repo';
import { createLicenseRepo } from './license.repo';
import { createStripeRepo } from './stripe.repo';
import { createSubscriptionRepo } from './subscription.repo';
import { createTeamRepo } from './team.repo';
import { createUsageRepo } from './usage.repo';
import { createUsernameRepo } from './username.repo';
import { createWebhookRepo } from './webhook.repo';

const factories = {
  teams: createTeamRepo,
  apiKeys: createApiKeyRepo,
  apps: createAppRepo,
  subscriptions: createSubscriptionRepo,
  licenses: createLicenseRepo,
  hwids: createHwidRepo,
  lookups: createLookupRepo,
  leases: createLeaseRepo,
  usernames: createUsernameRepo,
  blacklist: createBlacklistRepo,
  credentials: createCredentialsRepo,
  auth: createAuthRepo,
  events: createEventsRepo,
  usage: createUsageRepo,
  webhooks: createWebhookRepo,
  stripe: createStripeRepo,
  bulkRequests: createBulkRequestRepo,
};

export type Repos = { [Name in keyof typeof factories]: ReturnType<(typeof factories)[Name]> };

/**
 * Each repository is made on its first use, then kept: a request uses two or
 * three of them, and making one compiles its whole factory, which a cold start
 * would otherwise pay for all sixteen (and every request builds its own set).
 */
export function createRepos(table: Table, cache: ItemCache): Repos {
  const repos = {} as Repos;
  for (const name of Object.keys(factories) as (keyof Repos)[]) {
    Object.defineProperty(repos, name, {
      enumerable: true,
      configurable: true,
      get() {
        const repo = factories[name](table, cache);
        Object.defineProperty(repos, name, { value: repo, enumerable: true, writable: true });
        return repo;
      },
    });
  }
  return repos;
}
