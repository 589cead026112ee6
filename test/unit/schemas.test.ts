import { apiKeySchema } from '#data/model/api-key';
import { appSchema } from '#data/model/app';
import { licenseItem } from '#data/items';
import { licenseSchema, parseLicense } from '#data/model/license';
import { subscriptionSchema, type Subscription } from '#data/model/subscription';
import { licenseRecord } from '../support/fixtures';

const subscription: Subscription = {
  subscription_id: 's1',
  app_id: 'a1',
  team_id: 't1',
  name: 'Pro',
  level: 1,
  single_key_per_hwid: false,
  status: 'active',
  created_at: '2026-01-01T00:00:00.000Z',
};
const license = licenseRecord(subscription, { tags: ['vip'], metadata: { user_id: 42 } });

describe('item schemas', () => {
  it('read a stored license back without its key attributes', () => {
    expect(parseLicense(licenseItem(license))).toEqual(license);
  });

  it('reject a license whose status is not one the service writes', () => {
    expect(licenseSchema.safeParse({ ...license, status: 'banned' }).success).toBe(false);
  });

  it('reject an item missing a field, rather than letting undefined flow into a response', () => {
    const { hwid_lock: _dropped, ...partial } = license;
    expect(licenseSchema.safeParse(partial).success).toBe(false);
  });

  it('accept only the documented statuses of apps, subscriptions and API keys', () => {
    const app = { app_id: 'a', team_id: 't', name: 'n', status: 'active', created_at: 'x' };
    expect(appSchema.safeParse(app).success).toBe(true);
    expect(appSchema.safeParse({ ...app, status: 'deleted' }).success).toBe(false);
    const subscription = {
      subscription_id: 's', app_id: 'a', team_id: 't', name: 'Pro', level: 1,
      single_key_per_hwid: false, status: 'inactive', created_at: 'x',
    };
    expect(subscriptionSchema.safeParse(subscription).success).toBe(true);
    expect(subscriptionSchema.safeParse({ ...subscription, level: 1.5 }).success).toBe(false);
    expect(apiKeySchema.safeParse({ key_hash: 'h', team_id: 't', status: 'revoked', created_at: 'x' }).success).toBe(true);
  });
});
