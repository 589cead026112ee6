import type { Deps } from '#core/deps';
import type { RequestInfo } from '#core/http/handler';
import { addressHash } from '#core/http/network';
import { ManagementError, rateLimited } from '#core/http/errors';
import { constantTimeEqual, hmacHex, newPortalToken, newSignInCode, sha256Hex } from '#core/ids';
import { describeError } from '#core/logger';
import { escapeHtml, portalLinkOf, type MailMessage } from '#core/mail/mailer';
import { sleep } from '#data/backoff';
import { licensesWithEmail } from '#data/lookup.repo';
import { signInRules, type PortalSettings } from '#data/model/portal';
import * as portals from '#data/portal.repo';
import { portalOf } from './portal-app';
import { asCustomer } from './session';

/**
 * A sign-in answers no sooner than this after it began, whether or not a code was emailed: the
 * email's send is the one step only an email with licenses takes, and its time must not tell
 * who has licenses (docs/security.md#threat-model). Wall time, not the injected clock: it
 * is what a caller measures.
 */
export const signInAnswerMs = 400;

/** Racing sign-ins of one email or address each decide again after losing; past this many rounds, 429. */
const maxSignInRounds = 100;
const maxConflictPauseMs = 200;

/** The application's keyed hash of an email: what the table's keys hold instead of the address. */
export const emailHashOf = (secret: string, email: string): string => hmacHex(secret, `email\n${email}`);

/** What events, the audit log and log lines show for a customer: a prefix of that hash. */
export const emailFingerprint = (emailHash: string): string => emailHash.slice(0, 16);

const codeHashOf = (secret: string, emailHash: string, code: string): string => hmacHex(secret, `code\n${emailHash}\n${code}`);

/** Whole seconds of the injected clock. */
const nowSecondsOf = (deps: Deps): number => Math.floor(deps.clock.now().getTime() / 1000);

/**
 * `POST /portal/sign-in`: counts the sign-in against the email's and the address's limits, and
 * when licenses of the application carry the email, emails them a new code (which replaces the
 * last). The answer is the same either way, in the same time (`signInAnswerMs`).
 */
export async function signIn(deps: Deps, input: { app_id: string; email: string }, request: RequestInfo): Promise<undefined> {
  const started = Date.now();
  const { app, portal, secret } = await portalOf(deps, input.app_id);
  const emailHash = emailHashOf(secret, input.email);
  const sourceHash = addressHash(app.app_id, request.sourceIp);
  const licenses = await licensesWithEmail(deps.table, app.app_id, input.email);
  const code = newSignInCode();
  const nowSeconds = nowSecondsOf(deps);
  for (let round = 1; ; round++) {
    const counts = await portals.signInCounts(deps.table, app.app_id, emailHash, sourceHash);
    const since = nowSeconds - signInRules.windowSeconds;
    const email = (counts.email ?? []).filter((at) => at > since);
    const address = (counts.address ?? []).filter((at) => at > since);
    const full = [email.length >= signInRules.perEmailPerWindow ? email : [], address.length >= signInRules.perAddressPerWindow ? address : []].filter((list) => list.length > 0);
    if (full.length > 0) {
      // Free again when the oldest sign-in of each full list leaves the window.
      const retryAfter = Math.max(...full.map((list) => Math.min(...list) + signInRules.windowSeconds - nowSeconds), 1);
      throw rateLimited(retryAfter);
    }
    const outcome = await portals.recordSignIn(deps.table, {
      appId: app.app_id,
      emailHash,
      addressHash: sourceHash,
      email: { read: counts.email, starts: [...email, nowSeconds] },
      address: { read: counts.address, starts: [...address, nowSeconds] },
      countsExpireAt: nowSeconds + signInRules.windowSeconds,
      code: { code_hash: codeHashOf(secret, emailHash, code), wrong_tries: 0, expires_at: nowSeconds + signInRules.codeSeconds },
    });
    if (outcome === 'recorded') break;
    if (round >= maxSignInRounds) throw rateLimited(1);
    await sleep(Math.random() * Math.min(maxConflictPauseMs, 20 * round));
  }
  if (licenses.length > 0) await sendCode(deps, { appId: app.app_id, appName: app.name, portal, email: input.email, code, emailHash });
  await sleep(started + signInAnswerMs - Date.now());
  return undefined;
}

/**
 * Emails the code. A send that fails is logged (by the customer's fingerprint) and the answer stays
 * the same 202: a different answer would tell that the email has licenses.
 */
async function sendCode(deps: Deps, sent: { appId: string; appName: string; portal: PortalSettings; email: string; code: string; emailHash: string }): Promise<void> {
  const link = deps.config.portalUrl && `${portalLinkOf(deps.config.portalUrl, sent.appId)}#code=${sent.code}`;
  const minutes = signInRules.codeSeconds / 60;
  const message: MailMessage = {
    to: sent.email,
    subject: `Your sign-in code for ${sent.appName}`,
    text: [
      `Your code to sign in to ${sent.appName}: ${sent.code}`,
      '',
      `It works once, for ${minutes} minutes.${link ? ` Or open ${link}` : ''}`,
      '',
      'If you did not ask to sign in, ignore this email.',
    ].join('\n'),
    html: [
      `<p>Your code to sign in to ${escapeHtml(sent.appName)}:</p>`,
      `<p style="font-size:1.5em;font-weight:bold;letter-spacing:0.2em">${sent.code}</p>`,
      `<p>It works once, for ${minutes} minutes.${link ? ` Or <a href="${escapeHtml(link)}">sign in with this link</a>.` : ''}</p>`,
      '<p>If you did not ask to sign in, ignore this email.</p>',
    ].join('\n'),
    ...(sent.portal.sender_name === undefined ? {} : { fromName: sent.portal.sender_name }),
  };
  try {
    await deps.mailer!.send(message);
  } catch (error) {
    deps.logger.error('portal sign-in code not sent', { customer: emailFingerprint(sent.emailHash), ...describeError(error) });
  }
}

export interface PortalToken {
  token: string;
  expires_at: string;
}

/**
 * `POST /portal/verify`: the right code, unused and unexpired, starts a session of an hour; a
 * wrong one is counted, and the try that uses up the code's allowance deletes it. Hashes are
 * compared in constant time.
 */
export async function verify(deps: Deps, input: { app_id: string; email: string; code: string }): Promise<PortalToken> {
  const { app, secret } = await portalOf(deps, input.app_id);
  const emailHash = emailHashOf(secret, input.email);
  const tried = codeHashOf(secret, emailHash, input.code);
  for (let round = 1; round <= maxSignInRounds; round++) {
    const code = await portals.getCode(deps.table, app.app_id, emailHash);
    if (!code || code.expires_at <= nowSecondsOf(deps)) throw new ManagementError('INVALID_CODE');
    if (constantTimeEqual(tried, code.code_hash)) {
      if (!(await portals.useCode(deps.table, app.app_id, emailHash, code.code_hash))) throw new ManagementError('INVALID_CODE');
      return startSession(deps, app.app_id, input.email, emailHash);
    }
    const burns = code.wrong_tries + 1 >= signInRules.wrongCodesAllowed;
    if ((await portals.countWrongTry(deps.table, app.app_id, emailHash, code, burns)) === 'counted') throw new ManagementError('INVALID_CODE');
  }
  // Each round another try or sign-in changed the code first: at most a handful race in practice.
  throw new Error(`a portal code kept changing for ${maxSignInRounds} rounds of one verify`);
}

async function startSession(deps: Deps, appId: string, email: string, emailHash: string): Promise<PortalToken> {
  const token = newPortalToken();
  const expiresAt = nowSecondsOf(deps) + signInRules.sessionSeconds;
  const fingerprint = emailFingerprint(emailHash);
  // The session's item is the `portal.signed_in` event: written as the customer.
  await portals.putSession(asCustomer(deps, fingerprint).table, sha256Hex(token), { app_id: appId, email, email_fingerprint: fingerprint, expires_at: expiresAt });
  return { token, expires_at: new Date(expiresAt * 1000).toISOString() };
}
