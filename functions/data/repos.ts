import type { ItemCache } from './item-cache';
import { createApiKeyRepo } from './api-key.repo';
import { createAppRepo } from './app.repo';
import { createAuthRepo } from './auth.repo';
import { createBlacklistRepo } from './blacklist.repo';
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

export function createRepos(table: Table, cache: ItemCache) {
  return {
    teams: createTeamRepo(table),
    apiKeys: createApiKeyRepo(table),
    apps: createAppRepo(table),
    subscriptions: createSubscriptionRepo(table),
    licenses: createLicenseRepo(table),
    hwids: createHwidRepo(table),
    lookups: createLookupRepo(table),
    leases: createLeaseRepo(table),
    usernames: createUsernameRepo(table),
    blacklist: createBlacklistRepo(table),
    credentials: createCredentialsRepo(table),
    auth: createAuthRepo(table, cache),
    events: createEventsRepo(table),
    usage: createUsageRepo(table),
    webhooks: createWebhookRepo(table),
    stripe: createStripeRepo(table),
  };
}

export type Repos = ReturnType<typeof createRepos>;
