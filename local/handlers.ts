import type { Deps } from '#core/deps';
import type { GroupHandler } from '#core/http';
import type { Group } from '../functions/routes';
import { createHandler as app } from '../functions/app/handler';
import { createHandler as blacklist } from '../functions/blacklist/handler';
import { createHandler as client } from '../functions/client/handler';
import { createHandler as hwid } from '../functions/hwid/handler';
import { createHandler as license } from '../functions/license/handler';
import { createHandler as subscription } from '../functions/subscription/handler';

/** The very handlers each Lambda exports, built over the local deps. */
export function createGroupHandlers(deps: Deps): Record<Group, GroupHandler> {
  const source = () => deps;
  return {
    client: client(source),
    license: license(source),
    hwid: hwid(source),
    subscription: subscription(source),
    blacklist: blacklist(source),
    app: app(source),
  };
}
