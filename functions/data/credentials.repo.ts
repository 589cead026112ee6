import { conditional, transactWrite, type Table } from './db';
import { condition, conditions } from './expressions';
import { keys } from './keys';
import type { License } from './model/license';
import { usernameIndexItem } from './items';

export type CredentialsOutcome = 'updated' | 'username_taken' | 'license_changed';

/**
 * Sets a license's username (and password hash) in one transaction: the new
 * username index item is claimed unless another license holds it, the license
 * is updated only if its username is still the one read, and the old index item
 * is released. Two licenses racing for one username: exactly one wins.
 *
 * `license` is the license as the caller read it; `passwordHash` is the hash to
 * store with the username (the caller keeps the old one when only renaming).
 */
export async function set(table: Table, license: License, username: string, passwordHash: string): Promise<CredentialsOutcome> {
  const previous = license.username;
  const renamed = previous !== null && previous.toLowerCase() !== username.toLowerCase();
  const written = await conditional(
    transactWrite(table, [
      {
        Put: {
          TableName: table.name,
          Item: usernameIndexItem({ app_id: license.app_id, username, license_key: license.key, password_hash: passwordHash }),
          ...condition(conditions.freeOrHeldBy(license.key)),
        },
      },
      {
        Update: {
          TableName: table.name,
          Key: keys.licenseOf(license),
          UpdateExpression: 'SET username = :username',
          ConditionExpression: 'attribute_exists(pk) AND username = :previous',
          ExpressionAttributeValues: { ':username': username, ':previous': previous },
        },
      },
      ...(renamed
        ? [
            {
              Delete: {
                TableName: table.name,
                Key: keys.username(license.app_id, previous),
                ...condition(conditions.heldBy(license.key)),
              },
            },
          ]
        : []),
    ]),
  );
  if (written.held) return 'updated';
  return written.reasons[0] === 'ConditionalCheckFailed' ? 'username_taken' : 'license_changed';
}
