/**
 * JavaScript values to DynamoDB's attribute values and back, as the AWS SDK's
 * document client does with `removeUndefinedValues`: undefined members are
 * left out, numbers come back as numbers, sets as Sets, binary as Uint8Array.
 */
export type AttributeValue =
  | { S: string }
  | { N: string }
  | { B: string }
  | { BOOL: boolean }
  | { NULL: true }
  | { L: AttributeValue[] }
  | { M: AttributeMap }
  | { SS: string[] }
  | { NS: string[] }
  | { BS: string[] };

export type AttributeMap = Record<string, AttributeValue>;
export type Item = Record<string, unknown>;

class MarshallError extends Error {
  override name = 'MarshallError';
}

function number(value: number | bigint): string {
  if (typeof value === 'number' && !Number.isFinite(value)) throw new MarshallError(`${value} cannot be stored in DynamoDB`);
  return String(value);
}

const base64 = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');

function marshallSet(set: Set<unknown>): AttributeValue {
  const members = [...set];
  if (members.length === 0) throw new MarshallError('DynamoDB cannot store an empty set');
  if (members.every((member) => typeof member === 'string')) return { SS: members };
  if (members.every((member) => typeof member === 'number' || typeof member === 'bigint')) return { NS: members.map(number) };
  if (members.every((member) => member instanceof Uint8Array)) return { BS: members.map(base64) };
  throw new MarshallError('a set must hold only strings, only numbers or only binary values');
}

export function marshall(value: unknown): AttributeValue {
  if (typeof value === 'string') return { S: value };
  if (typeof value === 'number' || typeof value === 'bigint') return { N: number(value) };
  if (typeof value === 'boolean') return { BOOL: value };
  if (value === null) return { NULL: true };
  if (value instanceof Uint8Array) return { B: base64(value) };
  if (Array.isArray(value)) return { L: value.filter((member) => member !== undefined).map(marshall) };
  if (value instanceof Set) return marshallSet(value);
  if (typeof value === 'object' && [Object.prototype, null].includes(Object.getPrototypeOf(value))) return { M: marshallItem(value) };
  throw new MarshallError(`a ${typeof value === 'object' ? (value.constructor?.name ?? 'object') : typeof value} cannot be stored in DynamoDB`);
}

// Object.fromEntries defines properties, so a member named __proto__ stays a member instead of setting a prototype.
export function marshallItem(item: object): AttributeMap {
  return Object.fromEntries(Object.entries(item).flatMap(([name, value]) => (value === undefined ? [] : [[name, marshall(value)]])));
}

const binary = (text: string) => new Uint8Array(Buffer.from(text, 'base64'));

function unmarshall(value: AttributeValue): unknown {
  if ('S' in value) return value.S;
  if ('N' in value) return Number(value.N);
  if ('BOOL' in value) return value.BOOL;
  if ('NULL' in value) return null;
  if ('M' in value) return unmarshallItem(value.M);
  if ('L' in value) return value.L.map(unmarshall);
  if ('SS' in value) return new Set(value.SS);
  if ('NS' in value) return new Set(value.NS.map(Number));
  if ('B' in value) return binary(value.B);
  if ('BS' in value) return new Set(value.BS.map(binary));
  throw new MarshallError(`unknown attribute value type: ${Object.keys(value).join(', ')}`);
}

export function unmarshallItem(map: AttributeMap): Item {
  return Object.fromEntries(Object.entries(map).map(([name, value]) => [name, unmarshall(value)]));
}

const itemFields = new Set(['Key', 'Item', 'Attributes', 'ExpressionAttributeValues', 'ExclusiveStartKey', 'LastEvaluatedKey']);
const itemListFields = new Set(['Items', 'Keys']);
/** Maps from table name to that table's requests or answers. */
const perTableFields = new Set(['RequestItems', 'UnprocessedKeys', 'UnprocessedItems', 'Responses']);
const nestedFields = new Set(['TransactItems', 'Put', 'Update', 'Delete', 'ConditionCheck', 'PutRequest', 'DeleteRequest', 'CancellationReasons']);

/**
 * Converts every item, key and expression value inside a DynamoDB request or
 * answer (transactions and batches included), leaving the rest as it is.
 */
export function convertItems(shape: unknown, convert: (item: any) => unknown): any {
  if (Array.isArray(shape)) return shape.map((member) => convertItems(member, convert));
  if (typeof shape !== 'object' || shape === null) return shape;
  return Object.fromEntries(
    Object.entries(shape).flatMap(([field, value]) => (value === undefined ? [] : [[field, convertField(field, value, convert)]])),
  );
}

function convertField(field: string, value: any, convert: (item: any) => unknown): unknown {
  if (itemFields.has(field)) return convert(value);
  if (itemListFields.has(field)) return (value as unknown[]).map(convert);
  if (nestedFields.has(field)) return convertItems(value, convert);
  if (!perTableFields.has(field)) return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([table, perTable]) => [
      table,
      field === 'Responses' ? (perTable as unknown[]).map(convert) : convertItems(perTable, convert),
    ]),
  );
}
