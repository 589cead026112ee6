import type { Deps } from '#core/deps';
import type { GroupHandler } from '#core/http/handler';
import type { Group } from '../functions/routes';
import { createHandler as app } from '../functions/app/handler';
import { createHandler as blacklist } from '../functions/blacklist/handler';
import { createHandler as client } from '../functions/client/handler';
import { createHandler as hwid } from '../functions/hwid/handler';
import { createHandler as integration } from '../functions/integration/handler';
import { createHandler as license } from '../functions/license/handler';
import { createHandler as portal } from '../functions/portal/handler';
import { createHandler as subscription } from '../functions/subscription/handler';
import { createHandler as webhook } from '../functions/webhook/handler';
import { serveAs } from './serving';

type ServedHandler = (...args: Parameters<GroupHandler>) => ReturnType<GroupHandler>;

/** The very handlers each Lambda exports, built over the local deps, each run as its own function (./serving.ts). */
export function createGroupHandlers(deps: Deps): Record<Group, ServedHandler> {
  const source = () => deps;
  const served = (group: Group, handler: GroupHandler): ServedHandler => (event, context) => serveAs(group, () => handler(event, context));
  return {
    client: served('client', client(source)),
    license: served('license', license(source)),
    hwid: served('hwid', hwid(source)),
    subscription: served('subscription', subscription(source)),
    blacklist: served('blacklist', blacklist(source)),
    app: served('app', app(source)),
    webhook: served('webhook', webhook(source)),
    integration: served('integration', integration(source)),
    portal: served('portal', portal(source)),
  };
}
