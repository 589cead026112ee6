/**
 * Email the service sends to owners' customers (portal sign-in codes, a Stripe buyer's keys).
 * Two implementations: Amazon SES v2 on AWS (ses-mailer.ts), files in an outbox under
 * `DATA_DIR` locally (outbox.ts). A deployment with neither has no mailer (`Deps.mailer`
 * undefined), and what needs one refuses to be switched on.
 */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** The display name of the From address (the owner's `portal.sender_name`); the address is the deployment's. */
  fromName?: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

/**
 * `"Name" <address>` with the name's quotes and backslashes escaped and line breaks dropped,
 * so an owner's sender name can never add a header or a second address.
 */
export function fromHeader(address: string, name: string | undefined): string {
  const clean = name?.replace(/[\r\n]+/g, ' ').trim();
  if (!clean) return address;
  return `"${clean.replace(/(["\\])/g, '\\$1')}" <${address}>`;
}

/** Text of a message's HTML part: `&`, `<`, `>`, `"` and `'` as entities. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/** The customer portal's page for one application (`<portal>/?app=<app_id>`): what every email to a customer links to. */
export function portalLinkOf(portalUrl: string, appId: string): string {
  return `${portalUrl.replace(/\/+$/, '')}/?app=${encodeURIComponent(appId)}`;
}
