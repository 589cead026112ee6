/** Part of a DynamoDB expression with the placeholders it uses. */
export interface ExpressionPart {
  text: string;
  names: Record<string, string>;
  values: Record<string, unknown>;
}

/** A part written out: its text, and the values and names of its placeholders. */
export function part(text: string, values: Record<string, unknown> = {}, names: Record<string, string> = {}): ExpressionPart {
  return { text, names, values };
}

/**
 * Clauses over fields, each attribute through a `#` name placeholder, so any
 * field name is safe, reserved words (`name`, `status`) included; `tag` keeps
 * the placeholders of two parts of one expression apart.
 */
function fieldClauses(
  fields: Record<string, unknown>,
  tag: string,
  clause: (name: string, placeholder: string, value: unknown) => { text: string; value: unknown },
  separator: string,
): ExpressionPart {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const clauses = Object.entries(fields).map(([field, value], index) => {
    const written = clause(`#${tag}${index}`, `:${tag}${index}`, value);
    names[`#${tag}${index}`] = field;
    values[`:${tag}${index}`] = written.value;
    return written.text;
  });
  return { text: clauses.join(separator), names, values };
}

/** `SET` clauses for the fields given: `#set0 = :set0, #set1 = :set1`. */
export function assignments(fields: Record<string, unknown>, tag = 'set'): ExpressionPart {
  return fieldClauses(fields, tag, (name, placeholder, value) => ({ text: `${name} = ${placeholder}`, value }), ', ');
}

/** `SET` clauses that keep a value already there: `#first0 = if_not_exists(#first0, :first0)`. */
export function firstAssignments(fields: Record<string, unknown>, tag = 'first'): ExpressionPart {
  return fieldClauses(fields, tag, (name, placeholder, value) => ({ text: `${name} = if_not_exists(${name}, ${placeholder})`, value }), ', ');
}

/**
 * A condition that each field still holds the value given: `#expected0 = :expected0 AND …`;
 * a field given null must still be null (`attribute_type(#expected1, :expected1)`, the value 'NULL').
 */
export function equalities(expected: Record<string, unknown>, tag = 'expected'): ExpressionPart {
  return fieldClauses(
    expected,
    tag,
    (name, placeholder, value) => (value === null ? { text: `attribute_type(${name}, ${placeholder})`, value: 'NULL' } : { text: `${name} = ${placeholder}`, value }),
    ' AND ',
  );
}

/** Conditions that several writes state, by what they mean. */
export const conditions = {
  /** The item exists: an update must not create it. */
  exists: part('attribute_exists(pk)'),
  /** No item has the key yet: a put must not overwrite. */
  isNew: part('attribute_not_exists(pk)'),
  /** An index item (HWID, username) that is free, or already this license's: claiming or releasing it again changes nothing. */
  freeOrHeldBy: (licenseKey: string) => part('attribute_not_exists(pk) OR license_key = :key', { ':key': licenseKey }),
  /** A license that carries this tag. */
  tagged: (tag: string) => part('contains(tags, :tag)', { ':tag': tag }),
  /** An index item that names this license. */
  heldBy: (licenseKey: string) => part('license_key = :key', { ':key': licenseKey }),
  /**
   * The license still has exactly the bound HWIDs it was read with. An item
   * written before seats existed has `hwid` only and no `hwids`: it matches on
   * `hwid` (it can hold one HWID at most).
   */
  boundAsRead: (license: { hwids: readonly string[] }, prefix = 'read'): ExpressionPart => {
    const list = `:${prefix}Hwids`;
    const legacy =
      license.hwids.length === 0
        ? `attribute_not_exists(hwids) AND (attribute_not_exists(hwid) OR attribute_type(hwid, :${prefix}Null))`
        : license.hwids.length === 1
          ? `attribute_not_exists(hwids) AND hwid = :${prefix}Hwid`
          : undefined;
    const values: Record<string, unknown> = { [list]: license.hwids };
    if (license.hwids.length === 0) values[`:${prefix}Null`] = 'NULL';
    if (license.hwids.length === 1) values[`:${prefix}Hwid`] = license.hwids[0];
    return part(legacy ? `(hwids = ${list} OR (${legacy}))` : `hwids = ${list}`, values);
  },
};

/** A condition as a put, a delete or a transaction's condition check takes it. */
export function condition(each: ExpressionPart): { ConditionExpression: string; ExpressionAttributeNames?: Record<string, string>; ExpressionAttributeValues?: Record<string, unknown> } {
  return {
    ConditionExpression: each.text,
    ...(Object.keys(each.names).length > 0 ? { ExpressionAttributeNames: each.names } : {}),
    ...(Object.keys(each.values).length > 0 ? { ExpressionAttributeValues: each.values } : {}),
  };
}

/** What an UpdateItem, or a transaction's Update, takes of an update built here. */
export interface UpdateInput {
  UpdateExpression: string;
  ConditionExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
}

/**
 * An update put together clause by clause, each with the placeholders it
 * uses: `SET` and `REMOVE` clauses, and the conditions it is written under,
 * which all must hold. Conditions are named where they are stated
 * (`conditions` above, the activation's in auth.repo.ts), so a write reads as
 * the rules it keeps. Two parts giving one placeholder different values is a
 * mistake, and refused.
 */
export class Update {
  private readonly sets: string[] = [];
  private readonly removes: string[] = [];
  private readonly checks: string[] = [];
  private readonly names: Record<string, string> = {};
  private readonly values: Record<string, unknown> = {};

  set(...parts: ExpressionPart[]): this {
    for (const each of parts) this.sets.push(this.take(each));
    return this;
  }

  remove(...parts: ExpressionPart[]): this {
    for (const each of parts) this.removes.push(this.take(each));
    return this;
  }

  when(...parts: ExpressionPart[]): this {
    for (const each of parts) this.checks.push(this.take(each));
    return this;
  }

  input(): UpdateInput {
    const clauses = [...(this.sets.length > 0 ? [`SET ${this.sets.join(', ')}`] : []), ...(this.removes.length > 0 ? [`REMOVE ${this.removes.join(', ')}`] : [])];
    return {
      UpdateExpression: clauses.join(' '),
      ...(this.checks.length > 0 ? { ConditionExpression: this.checks.join(' AND ') } : {}),
      ...(Object.keys(this.names).length > 0 ? { ExpressionAttributeNames: { ...this.names } } : {}),
      ...(Object.keys(this.values).length > 0 ? { ExpressionAttributeValues: { ...this.values } } : {}),
    };
  }

  private take(each: ExpressionPart): string {
    for (const [placeholder, value] of Object.entries(each.values)) {
      if (placeholder in this.values && !isSameValue(this.values[placeholder], value)) throw new Error(`${placeholder} is given two values in one update`);
      this.values[placeholder] = value;
    }
    for (const [placeholder, name] of Object.entries(each.names)) {
      if (placeholder in this.names && this.names[placeholder] !== name) throw new Error(`${placeholder} names two attributes in one update`);
      this.names[placeholder] = name;
    }
    return each.text;
  }
}

/** Values that several parts of one update give a placeholder: the same scalar, or the same list of scalars. */
function isSameValue(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((each, index) => each === b[index]);
  return a === b;
}
