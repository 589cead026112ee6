import { iso } from '#shared/clock';
import type { Deps } from '#core/deps';
import { concurrentChange, invalidInput } from '#core/http/errors';
import { maxTransactItems } from '#data/db';
import { managementView } from '#core/domain/license-view';
import { notFound, ownedLicense } from '#core/domain/ownership';
import type { OwnerInput } from '#core/http/handler';
import { hwidInUse } from '../hwid/edit';
import type { updateSubscriptionSchema } from './schemas';
import { subscriptionForApp } from './subscription-of-app';
import * as hwids from '#data/hwid.repo';
import * as licenses from '#data/license.repo';

/**
 * Moves a license to another tier of the same application, and its HWID index
 * items with it in the same transaction: onto a `single_key_per_hwid`
 * subscription every bound HWID is claimed (one already held by another license
 * refuses the move with HWID_IN_USE), off one the license's index items are
 * released, so the index always matches the subscription the license is on.
 */
export async function updateSubscription(deps: Deps, input: OwnerInput<typeof updateSubscriptionSchema>) {
  for (let attempt = 1; attempt <= 3; attempt++) {
    const license = await ownedLicense(deps, input.teamId, input.license_key);
    const subscription = await subscriptionForApp(deps, input.teamId, license.app_id, input.subscription_id);
    const claim = subscription.single_key_per_hwid;
    // The move and its claims are one transaction, which holds the license and at most 99 index items.
    if (claim && license.hwids.length >= maxTransactItems) {
      throw invalidInput(`subscription_id: a license with ${license.hwids.length} bound devices cannot move onto a single_key_per_hwid subscription; release one with /hwid/remove first`);
    }
    const outcome = await hwids.replaceHwids(deps.table, {
      license,
      hwids: license.hwids,
      claim,
      claimKept: claim,
      releaseKept: !claim,
      subscriptionId: subscription.subscription_id,
      now: iso(deps.clock.now()),
      expect: { team_id: input.teamId, app_id: license.app_id },
    });
    if (outcome === 'hwid-in-use') throw hwidInUse();
    if (outcome === 'changed') {
      const updated = await licenses.get(deps.table, license.key, license.team_id);
      if (!updated) throw notFound.license();
      return managementView(updated, subscription, deps.clock.now());
    }
  }
  throw concurrentChange();
}
