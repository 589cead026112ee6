import { isPlainObject } from '#shared/plain-object';

/**
 * The texts a device without a network hands over (docs/client-api.md, "Air-gapped activation"): an
 * activation request (`lfr1.`) and a return code (`lfx1.`), each its prefix and the unpadded
 * base64url of a JSON object. Who sends one may leave `app_id` and `nonce` out of the body:
 * the code's own name the application whose key signs the answer, and the request's nonce.
 */
const codePrefixes = { activation: 'lfr1.', return: 'lfx1.' } as const;

/** Paths whose `request` field holds a code of this kind. */
const codePaths: ReadonlyMap<string, keyof typeof codePrefixes> = new Map([
  ['/license-file', 'activation'],
  ['/license-file/return', 'return'],
]);

/** Far beyond any real code (a 256-character HWID and a license key make well under 1 KB): a longer text is refused unread. */
export const maxCodeLength = 4096;

/** The code's fields, or undefined when the text is no code of this kind (wrong prefix, not base64url, not a JSON object). */
export function decodeCode(text: unknown, kind: keyof typeof codePrefixes): Record<string, unknown> | undefined {
  const prefix = codePrefixes[kind];
  if (typeof text !== 'string' || text.length > maxCodeLength || !text.startsWith(prefix)) return undefined;
  const encoded = text.slice(prefix.length);
  if (!/^[A-Za-z0-9_-]+$/.test(encoded)) return undefined;
  try {
    const fields: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(encoded, 'base64url')));
    return isPlainObject(fields) ? fields : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The `app_id` and `nonce` an answer is signed for: the body's, else, on a route that
 * takes a code, the code's (docs/client-api.md, "Air-gapped activation").
 */
export function signedFields(path: string | undefined, body: unknown): { appId: unknown; nonce: unknown } {
  if (!isPlainObject(body)) return { appId: undefined, nonce: undefined };
  const kind = path === undefined ? undefined : codePaths.get(path);
  const code = kind === undefined ? undefined : decodeCode(body.request, kind);
  return { appId: body.app_id ?? code?.app_id, nonce: body.nonce ?? code?.nonce };
}
