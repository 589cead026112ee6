import { toggleLockBulkSchema } from '../../functions/hwid/schemas';
import { editSubscriptionSchema } from '../../functions/subscription/schemas';
import { listBlacklistSchema } from '../../functions/blacklist/schemas';

describe('management body schemas', () => {
  it('accept 1000 license keys, the documented maximum, and answer duplicates once', () => {
    const licenseKeys = Array.from({ length: 999 }, (_, index) => `KEY-${index}`);

    const parsed = toggleLockBulkSchema.parse({ license_keys: [...licenseKeys, 'KEY-0'], hwid_lock: true });

    expect(parsed.license_keys).toEqual(licenseKeys);
  });

  it('count license keys before removing duplicates, so 1001 entries are refused', () => {
    const result = toggleLockBulkSchema.safeParse({ license_keys: Array.from({ length: 1001 }, () => 'SAME'), hwid_lock: true });

    expect(result.success).toBe(false);
  });

  it('default the blacklist page size to 25', () => {
    expect(listBlacklistSchema.parse({ app_id: '0b8f4c52-8f5e-4a7e-9c1e-3f2b1a0c9d8e' }).per_page).toBe(25);
  });

  it('refuse a subscription edit that changes nothing', () => {
    const result = editSubscriptionSchema.safeParse({ subscription_id: '0b8f4c52-8f5e-4a7e-9c1e-3f2b1a0c9d8e' });

    expect(result.success).toBe(false);
  });
});
