import { batchGetItems, itemId } from './batch-get';
import { conditional, getItem, putNew, transactWrite, type Table, type TransactItem } from './db';
import { condition, conditions, part, Update } from './expressions';
import { keys } from './keys';
import { portalCodeSchema, portalSessionSchema, signInsSchema, type PortalCode, type PortalSession, type SignInRecord } from './model/portal';

/** The recent sign-ins of an email and of a source address, as they stand now (strongly consistent, one BatchGetItem). */
export async function signInCounts(table: Table, appId: string, emailHash: string, addressHash: string): Promise<{ email: number[] | undefined; address: number[] | undefined }> {
  const emailKey = keys.portalEmailSignIns(appId, emailHash);
  const addressKey = keys.portalAddressSignIns(appId, addressHash);
  const found = await batchGetItems(table, [emailKey, addressKey], { consistentRead: true });
  const starts = (item: Record<string, unknown> | undefined) => (item ? signInsSchema.parse(item).starts : undefined);
  return { email: starts(found.get(itemId(emailKey))), address: starts(found.get(itemId(addressKey))) };
}

/**
 * One sign-in, in one transaction: both lists of sign-in times, each replaced only while it is as
 * the sign-in read it (so of racing sign-ins each decides on the list the one before it wrote, and
 * no limit is passed), and the new code, which replaces the last one whatever it was.
 * `changed`: another sign-in came between; read again and decide again.
 */
export async function recordSignIn(table: Table, record: SignInRecord): Promise<'recorded' | 'changed'> {
  const asRead = (read: number[] | undefined) => condition(read === undefined ? conditions.isNew : part('#starts = :read', { ':read': read }, { '#starts': 'starts' }));
  const items: TransactItem[] = [
    { Put: { TableName: table.name, Item: { ...keys.portalEmailSignIns(record.appId, record.emailHash), starts: record.email.starts, ttl: record.countsExpireAt }, ...asRead(record.email.read) } },
    {
      Put: { TableName: table.name, Item: { ...keys.portalAddressSignIns(record.appId, record.addressHash), starts: record.address.starts, ttl: record.countsExpireAt }, ...asRead(record.address.read) },
    },
    { Put: { TableName: table.name, Item: { ...keys.portalCode(record.appId, record.emailHash), ...record.code, ttl: record.code.expires_at } } },
  ];
  const written = await conditional(transactWrite(table, items), 'race');
  return written.held ? 'recorded' : 'changed';
}

export async function getCode(table: Table, appId: string, emailHash: string): Promise<PortalCode | undefined> {
  const item = await getItem(table, keys.portalCode(appId, emailHash), { consistentRead: true });
  return item && portalCodeSchema.parse(item);
}

/** The code as it was read: the same hash and as many wrong tries. */
const codeAsRead = (code: PortalCode) => part('code_hash = :hash AND wrong_tries = :tries', { ':hash': code.code_hash, ':tries': code.wrong_tries });

/**
 * One wrong try of the code as read: counted, or the code deleted when this is the last try it
 * takes. `changed`: another try or a new code came between; read again. A transaction, so a
 * resent attempt of an applied one is not counted twice.
 */
export async function countWrongTry(table: Table, appId: string, emailHash: string, code: PortalCode, burns: boolean): Promise<'counted' | 'changed'> {
  const key = keys.portalCode(appId, emailHash);
  const write: TransactItem = burns
    ? { Delete: { TableName: table.name, Key: key, ...condition(codeAsRead(code)) } }
    : { Update: { TableName: table.name, Key: key, ...new Update().set(part('wrong_tries = :next', { ':next': code.wrong_tries + 1 })).when(codeAsRead(code)).input() } };
  return (await conditional(transactWrite(table, [write]), 'race')).held ? 'counted' : 'changed';
}

/** The right code, used: deleted while it is the one read, so it signs in once. */
export async function useCode(table: Table, appId: string, emailHash: string, codeHash: string): Promise<boolean> {
  const write: TransactItem = { Delete: { TableName: table.name, Key: keys.portalCode(appId, emailHash), ...condition(part('code_hash = :hash', { ':hash': codeHash })) } };
  return (await conditional(transactWrite(table, [write]), 'race')).held;
}

export function putSession(table: Table, tokenHash: string, session: PortalSession): Promise<boolean> {
  return putNew(table, { ...keys.portalSession(tokenHash), ...session, ttl: session.expires_at });
}

/** Strongly consistent: a session ended by sign-out is gone for the very next request. */
export async function getSession(table: Table, tokenHash: string): Promise<PortalSession | undefined> {
  const item = await getItem(table, keys.portalSession(tokenHash), { consistentRead: true });
  return item && portalSessionSchema.parse(item);
}

/** Ends a session; ending one already gone changes nothing. */
export async function deleteSession(table: Table, tokenHash: string): Promise<void> {
  await transactWrite(table, [{ Delete: { TableName: table.name, Key: keys.portalSession(tokenHash) } }]);
}
