/**
 * Where webhooks may go (docs/webhooks.md#targets). `public`, the deployed
 * stack's only policy: https, and only addresses that are plain public
 * unicast. `local`, for `npm start` alone: http too, and loopback, so that a
 * receiver on the developer's machine works. Both refuse every private,
 * link-local (the cloud metadata address among them), multicast and reserved
 * address. The policy is chosen in code by who runs the delivery, never read
 * from the environment, so no setting can open it on AWS.
 */
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { TargetPolicy } from '#core/deps';

// The rules apart from the agents that enforce them on connection (targets.ts): the webhook
// routes only check URLs, and their cold starts need not load the agents and node:http(s).

export const metadataAddress = '169.254.169.254';
export const loopback = ['127.0.0.0/8', '::1/128'];

/** Why `url` can never be a target under `policy`, or undefined. Names are checked when connecting. */
export function targetProblem(url: string, policy: TargetPolicy): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'is not a URL';
  }
  const schemes = policy === 'local' ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(parsed.protocol)) return policy === 'local' ? 'must be an https or http URL' : 'must be an https URL';
  if (parsed.username || parsed.password) return 'must not carry a user name or password';
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (!isIP(host)) return undefined;
  // A literal address is judged as the connection's check will judge it (ipaddr.js's ranges, which
  // request-filtering-agent uses), so create and update refuse exactly what delivery would.
  const range = ipaddr.parse(host).range();
  if (policy === 'local' && range === 'loopback') return undefined;
  if (range !== 'unicast') return 'must not point at a loopback, private, link-local, multicast or reserved address';
  return undefined;
}
