import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import type { Deps } from '#core/deps';
import { ClientError } from '#core/http/errors';
import { createItemCache } from '#data/item-cache';
import { licenseItem } from '#data/items';
import { keys } from '#data/keys';
import type { License } from '#data/model/license';
import type { Subscription } from '#data/model/subscription';
import { authenticate } from '../../functions/client/auth';
import {
  blacklistProbes,
  checkBlacklists,
  checkLicenseState,
  checkSubscription,
  checkTeam,
  hwidToBind,
  successCode,
} from '../../functions/client/auth-checks';
import { licenseRecord } from '../support/fixtures';

const now = new Date('2026-06-01T12:00:00.000Z');

const subscription: Subscription = {
  subscription_id: 'sub-1',
  app_id: 'app-1',
  team_id: 'team-1',
  name: 'Pro',
  level: 1,
  single_key_per_hwid: false,
  status: 'active',
  created_at: '2026-01-01T00:00:00.000Z',
};

const license: License = licenseRecord(subscription, { key: 'AAAAA-BBBBB-CCCCC-DDDDD-EEEEE', initial_duration: 86400 });

/** The code a check threw, or undefined when it passed. */
function codeOf(check: () => unknown): string | undefined {
  try {
    check();
    return undefined;
  } catch (error) {
    if (error instanceof ClientError) return error.message;
    throw error;
  }
}

const headers = (values: Record<string, string>) => (name: string) => values[name.toLowerCase()];

describe('blacklist probes', () => {
  it('normalise country, ASN, IP and HWID, in the documented order', () => {
    const probes = blacklistProbes(
      { header: headers({ 'cloudfront-viewer-country': 'de', 'cloudfront-viewer-asn': 'AS13335' }), sourceIp: '::ffff:192.0.2.7' },
      'device-1',
      ['country', 'asn'],
    );
    expect(probes).toEqual([
      { type: 'country', value: 'DE' },
      { type: 'asn', value: '13335' },
      { type: 'ip', value: '192.0.2.7' },
      { type: 'hwid', value: 'device-1' },
    ]);
  });

  it('leave out what is absent or does not parse', () => {
    const probes = blacklistProbes({ header: headers({ 'cloudfront-viewer-country': 'Germany', 'cloudfront-viewer-asn': 'AS-1' }), sourceIp: '' }, undefined, ['country', 'asn']);
    expect(probes).toEqual([]);
  });

  it('ignore the CloudFront viewer headers the deployment does not trust, whatever a client sends', () => {
    const request = { header: headers({ 'cloudfront-viewer-country': 'KP', 'cloudfront-viewer-asn': '64500' }), sourceIp: '192.0.2.7' };
    expect(blacklistProbes(request, 'device-1', [])).toEqual([
      { type: 'ip', value: '192.0.2.7' },
      { type: 'hwid', value: 'device-1' },
    ]);
    expect(blacklistProbes(request, undefined, ['country']).map((probe) => probe.type)).toEqual(['country', 'ip']);
  });

  it('answer the first listed type in the order country, ASN, IP, HWID', () => {
    expect(codeOf(() => checkBlacklists(['hwid', 'ip']))).toBe('IP_BLACKLISTED');
    expect(codeOf(() => checkBlacklists(['hwid', 'asn', 'country']))).toBe('COUNTRY_BLACKLISTED');
    expect(codeOf(() => checkBlacklists(['hwid']))).toBe('HWID_BLACKLISTED');
    expect(codeOf(() => checkBlacklists([]))).toBeUndefined();
  });
});

describe('license state (check 5 of docs/client-api.md#check-order)', () => {
  const used = { ...license, first_used_at: '2026-06-01T11:00:00.000Z', expires_at: '2026-06-01T12:00:00.000Z' };

  it('expires a license at its expires_at, not a millisecond later', () => {
    expect(codeOf(() => checkLicenseState(used, new Date(Date.parse(used.expires_at) - 1)))).toBeUndefined();
    expect(codeOf(() => checkLicenseState(used, now))).toBe('LICENSE_EXPIRED');
  });

  it('checks status before expiry', () => {
    expect(codeOf(() => checkLicenseState({ ...used, status: 'paused' }, now))).toBe('LICENSE_NOT_ACTIVE');
  });

  it('carries expires_at, and nothing else, on LICENSE_EXPIRED', () => {
    try {
      checkLicenseState(used, now);
    } catch (error) {
      expect((error as ClientError).body()).toEqual({ success: false, message: 'LICENSE_EXPIRED', data: { expires_at: used.expires_at } });
    }
    expect.assertions(1);
  });
});

describe('team and subscription (checks 7 and 8 of docs/client-api.md#check-order)', () => {
  const team = { team_id: 'team-1', name: 'T', created_at: 'x' };

  it('accept a plan that never expires or expires later, and refuse one that has expired or a missing team', () => {
    expect(codeOf(() => checkTeam({ ...team, plan_expires_at: null }, now))).toBeUndefined();
    expect(codeOf(() => checkTeam({ ...team, plan_expires_at: '2026-06-01T12:00:01.000Z' }, now))).toBeUndefined();
    expect(codeOf(() => checkTeam({ ...team, plan_expires_at: now.toISOString() }, now))).toBe('TEAM_ERROR');
    expect(codeOf(() => checkTeam(undefined, now))).toBe('TEAM_ERROR');
  });

  it('treat a subscription of another application as missing', () => {
    expect(codeOf(() => checkSubscription({ ...subscription, app_id: 'app-2' }, license))).toBe('SUBSCRIPTION_ERROR');
    expect(codeOf(() => checkSubscription(undefined, license))).toBe('SUBSCRIPTION_ERROR');
    expect(codeOf(() => checkSubscription({ ...subscription, status: 'inactive' }, license))).toBe('SUBSCRIPTION_NOT_ACTIVE');
  });
});

describe('HWID processing (check 9 of docs/client-api.md#check-order)', () => {
  const locked = { ...license, hwid_lock: true };

  it('binds nothing for an unlocked license, whatever is sent', () => {
    expect(hwidToBind({ ...license, hwid: 'stored' }, 'other', now)).toBeUndefined();
    expect(hwidToBind(license, undefined, now)).toBeUndefined();
  });

  it('binds the sent HWID while none is bound, accepts the bound one and refuses others', () => {
    expect(hwidToBind(locked, 'device-1', now)).toBe('device-1');
    const bound = { ...locked, hwid: 'device-1', hwids: ['device-1'] };
    expect(hwidToBind(bound, 'device-1', now)).toBeUndefined();
    expect(codeOf(() => hwidToBind(bound, 'device-2', now))).toBe('HWID_MISMATCH');
    expect(codeOf(() => hwidToBind(bound, undefined, now))).toBe('HWID_NOT_PROVIDED');
  });

  it('binds a new HWID while a seat is free, accepts every bound one, and refuses a new one when the seats are taken', () => {
    const seats = { ...locked, max_devices: 2, hwid: 'device-1', hwids: ['device-1'] };
    expect(hwidToBind(seats, 'device-2', now)).toBe('device-2');
    const full = { ...seats, hwids: ['device-1', 'device-2'] };
    expect(hwidToBind(full, 'device-2', now)).toBeUndefined();
    expect(codeOf(() => hwidToBind(full, 'device-3', now))).toBe('HWID_MISMATCH');
  });

  it('names the success code after first use and lock', () => {
    expect(successCode(true, false)).toBe('LICENSE_VERIFIED_UNUSED_AND_UNLOCKED_KEY');
    expect(successCode(true, true)).toBe('LICENSE_VERIFIED_UNUSED_AND_LOCKED_KEY');
    expect(successCode(false, false)).toBe('LICENSE_VERIFIED_USED_AND_UNLOCKED_KEY');
    expect(successCode(false, true)).toBe('LICENSE_VERIFIED_USED_AND_LOCKED_KEY');
  });
});

describe('the /auth pipeline', () => {
  it('answers APPLICATION_NOT_FOUND when the app vanishes between check 2 and check 6 of docs/client-api.md#check-order', async () => {
    const app = { app_id: 'app-1', team_id: 'team-1', name: 'A', status: 'active' as const, created_at: 'x' };
    const team = { team_id: 'team-1', name: 'T', plan_expires_at: null, created_at: 'x' };
    // Each BatchGetItem of the hot path finds the next of these: the second read no longer finds the app.
    const reads: Record<string, unknown>[][] = [
      [{ ...keys.app(app.app_id), ...app }, licenseItem(license)],
      [{ ...keys.team(team.team_id), ...team }, { ...keys.subscription(subscription.subscription_id), ...subscription }],
    ];
    const writes: unknown[] = [];
    const send = async (command: object) => {
      if (command instanceof BatchGetCommand) return { Responses: { store: reads.shift()! } };
      writes.push(command);
      return {};
    };
    const deps = {
      clock: { now: () => now },
      config: { bcryptCost: 4 },
      table: { doc: { send }, name: 'store' },
      cache: createItemCache(0, { now: () => now }),
    } as unknown as Deps;

    await expect(authenticate(deps, { appId: 'app-1', credential: { license: license.key }, hwid: undefined, offlineToken: false }, [])).rejects.toMatchObject({
      message: 'APPLICATION_NOT_FOUND',
    });
    expect(writes).toEqual([]);
  });
});
