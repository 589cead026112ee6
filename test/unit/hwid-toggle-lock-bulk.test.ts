import type { Deps } from '#core/deps';
import { createLogger } from '#core/logger';
import type { License } from '#data/model/license';
import { toggleLockBulk } from '../../functions/hwid/toggle-lock-bulk';
import { recordingSink } from '../support/log-evidence';

/** Deps whose license update is the given fake; the logger's lines are kept. */
function fakeDeps(updateFields: (licenseKey: string) => Promise<License | undefined>) {
  const lines: string[] = [];
  const deps = {
    logger: createLogger('debug', {}, recordingSink(lines)),
    repos: { licenses: { updateFields } },
  } as unknown as Deps;
  return { deps, lines };
}

const someLicense = {} as License;

describe('toggleLockBulk', () => {
  it('fails a key whose update throws as SERVER_ERROR and still answers every other key', async () => {
    const { deps, lines } = fakeDeps(async (licenseKey) => {
      if (licenseKey === 'BROKEN') throw new Error('throttled');
      return licenseKey === 'MISSING' ? undefined : someLicense;
    });

    const result = await toggleLockBulk(deps, { license_keys: ['A', 'BROKEN', 'MISSING', 'B'], hwid_lock: true, teamId: 't', requestId: 'r-1' });

    expect(result).toEqual({
      succeeded: ['A', 'B'],
      failed: [
        { license_key: 'BROKEN', error_code: 'SERVER_ERROR' },
        { license_key: 'MISSING', error_code: 'LICENSE_NOT_FOUND' },
      ],
    });
    expect(lines.some((line) => line.includes('throttled'))).toBe(true);
    expect(lines.some((line) => line.includes('BROKEN'))).toBe(false);
  });

  it('keeps at most 16 updates in flight', async () => {
    let inFlight = 0;
    let most = 0;
    const { deps } = fakeDeps(async () => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 1));
      inFlight--;
      return someLicense;
    });
    const licenseKeys = Array.from({ length: 100 }, (_, index) => `K${index}`);

    const result = await toggleLockBulk(deps, { license_keys: licenseKeys, hwid_lock: false, teamId: 't', requestId: 'r-2' });

    expect(result.succeeded).toEqual(licenseKeys);
    expect(most).toBe(16);
  });
});
