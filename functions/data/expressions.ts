/** Part of a DynamoDB expression with the placeholders it uses. */
export interface ExpressionPart {
  text: string;
  names: Record<string, string>;
  values: Record<string, unknown>;
}

/**
 * Every attribute goes through a `#` name placeholder, so any field name is
 * safe, reserved words (`name`, `status`) included; `tag` keeps the
 * placeholders of two parts of one expression apart.
 */
function part(fields: Record<string, unknown>, tag: string, clause: (name: string, value: string) => string, separator: string): ExpressionPart {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const clauses = Object.entries(fields).map(([field, value], index) => {
    names[`#${tag}${index}`] = field;
    values[`:${tag}${index}`] = value;
    return clause(`#${tag}${index}`, `:${tag}${index}`);
  });
  return { text: clauses.join(separator), names, values };
}

/** `SET` clauses for the fields given: `#set0 = :set0, #set1 = :set1`. */
export function assignments(fields: Record<string, unknown>, tag = 'set'): ExpressionPart {
  return part(fields, tag, (name, value) => `${name} = ${value}`, ', ');
}

/** A condition that each field still holds the value given: `#expected0 = :expected0 AND …`. */
export function equalities(expected: Record<string, unknown>, tag = 'expected'): ExpressionPart {
  return part(expected, tag, (name, value) => `${name} = ${value}`, ' AND ');
}
