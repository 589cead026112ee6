import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * The app client (clients/app-typescript) is published alone, so it writes the
 * answer types it exposes out by hand instead of importing the generated schema
 * of the owner client; this keeps them to the OpenAPI document's: the same
 * fields, optional exactly where the document does not require them.
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const openapi = JSON.parse(readFileSync(join(root, 'docs', 'openapi.json'), 'utf8')) as {
  components: { schemas: Record<string, { properties: Record<string, unknown>; required?: string[] }> };
};
const typesFile = join(root, 'clients', 'app-typescript', 'src', 'types.ts');
const source = ts.createSourceFile(typesFile, readFileSync(typesFile, 'utf8'), ts.ScriptTarget.Latest);

/** `name` and `name?` of each member of the interface, in order. */
function membersOf(name: string): string[] {
  const declaration = source.statements.find((statement): statement is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(statement) && statement.name.text === name);
  if (!declaration) throw new Error(`no interface ${name} in ${typesFile}`);
  return declaration.members.filter(ts.isPropertySignature).map((member) => `${member.name.getText(source)}${member.questionToken ? '?' : ''}`);
}

const documented = (schema: string) => {
  const { properties, required = [] } = openapi.components.schemas[schema]!;
  return Object.keys(properties).map((field) => `${field}${required.includes(field) ? '' : '?'}`);
};

describe("the app client's answer types", () => {
  it.each([
    ['LicenseData', 'AuthData'],
    ['UsageCounter', 'UsageCounter'],
  ])('%s has the fields of the OpenAPI schema %s', (type, schema) => {
    expect(membersOf(type)).toEqual(documented(schema));
  });
});
