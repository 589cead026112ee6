import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Deps } from '#core/deps';
import { createLogger } from '#core/logger';
import { licenseItem } from '#data/items';
import type { License } from '#data/model/license';
import { toggleLockBulk } from '../../functions/hwid/toggle-lock-bulk';
import { licenseRecord } from '../support/fixtures';
import { recordingSink } from '../support/log-evidence';

const someLicense = licenseRecord({ subscription_id: 's', app_id: 'a', team_id: 't', name: 'n', level: 1, single_key_per_hwid: false, status: 'active', created_at: '' });

/**
 * Deps whose license updates go to `updateFields`, which gets the key of each
 * update (in the shared namespace or under the team) and answers the license as
 * stored afterwards, or undefined when its condition fails; the logger's lines are kept.
 */
function fakeDeps(updateFields: (licenseKey: string) => Promise<License | undefined>) {
  const lines: string[] = [];
  const send = async (command: object) => {
    if (!(command instanceof UpdateCommand)) throw new Error(`only license updates are expected, not ${command.constructor.name}`);
    const licenseKey = String(command.input.Key!.pk).replace(/^LIC#(t\/)?/, '');
    const stored = await updateFields(licenseKey);
    if (!stored) throw Object.assign(new Error('The conditional request failed'), { name: 'ConditionalCheckFailedException' });
    return { Attributes: licenseItem(stored) };
  };
  const deps = {
    logger: createLogger('debug', {}, recordingSink(lines)),
    table: { doc: { send }, name: 'licenses' },
  } as unknown as Deps;
  return { deps, lines };
}

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
