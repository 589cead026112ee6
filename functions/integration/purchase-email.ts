import type { Deps } from '#core/deps';
import { newId } from '#core/ids';
import { escapeHtml, portalLinkOf } from '#core/mail/mailer';
import type { App } from '#data/model/app';
import * as stripe from '#data/stripe.repo';

/** How long a delivery's claim on a purchase email holds against others: a delivery that died while sending leaves it. */
const claimSeconds = 300;

/**
 * Emails the buyer of a Checkout Session their license keys and the portal's
 * address, when the application's portal is on and the deployment can send
 * (docs/portal.md#what-a-stripe-purchase-sends). The message carries the
 * session's own keys and nothing else of the application. One delivery claims
 * the message, sends it, then marks it sent, so deliveries at once or later
 * send nothing more; a send that failed gives the claim up and throws, so
 * Stripe's redelivery sends it. Only a delivery that dies between sending and
 * marking can leave a second message to a later one, after its claim went stale.
 */
export async function emailPurchase(deps: Deps, app: App, sessionId: string, buyer: string | undefined): Promise<void> {
  const portal = app.portal;
  const portalUrl = deps.config.portalUrl;
  const mailer = deps.mailer;
  if (!portal?.enabled || buyer === undefined || mailer === undefined || portalUrl === undefined) return;
  const licenseKeys = await stripe.licenseKeysOf(deps.table, app.app_id, sessionId);
  if (licenseKeys.length === 0) return;
  const now = deps.clock.now();
  const claim = newId();
  if (!(await stripe.claimPurchaseEmail(deps.table, app.app_id, sessionId, claim, now, new Date(now.getTime() - claimSeconds * 1000)))) return;

  const link = portalLinkOf(portalUrl, app.app_id);
  const plural = licenseKeys.length > 1;
  const intro = `Thank you for buying ${app.name}. Your license ${plural ? 'keys are' : 'key is'}:`;
  const portalLine = 'Sign in to the customer portal with this email address to see your licenses, free a device or get a license file:';
  try {
    await mailer.send({
      to: buyer,
      subject: `Your ${app.name} license ${plural ? 'keys' : 'key'}`,
      text: [intro, '', ...licenseKeys, '', portalLine, link, ...(portal.support_url ? ['', `Help: ${portal.support_url}`] : [])].join('\n'),
      html: [
        `<p>${escapeHtml(intro)}</p>`,
        `<ul>${licenseKeys.map((key) => `<li><code>${escapeHtml(key)}</code></li>`).join('')}</ul>`,
        `<p>${escapeHtml(portalLine)} <a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p>`,
        ...(portal.support_url ? [`<p>Help: <a href="${escapeHtml(portal.support_url)}">${escapeHtml(portal.support_url)}</a></p>`] : []),
      ].join('\n'),
      ...(portal.sender_name ? { fromName: portal.sender_name } : {}),
    });
  } catch (error) {
    await stripe.releasePurchaseEmail(deps.table, app.app_id, sessionId, claim);
    throw error;
  }
  await stripe.purchaseEmailSent(deps.table, app.app_id, sessionId, claim, deps.clock.now());
}
