import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * A zod schema built at a module's top level is built by every cold start of
 * every function that bundles the module, whether its first request parses it
 * or not: top-level schemas are wrapped in `z.lazy` and built on first use
 * (docs/development.md#conventions). The shared fields stay eager: the OpenAPI
 * document tells them apart by identity, and a record's key schema must not be
 * lazy. functions/openapi is the document's own function, never on a request's path.
 */
const root = path.resolve(import.meta.dirname, '../..');
const eager = new Set(['functions/core/domain/fields.ts', 'functions/shared/entitlements.ts:entitlementName']);
/** Builders that make a check or set an option, not a schema. */
const notSchemas = new Set(['lazy', 'refine', 'superRefine', 'config']);

/** The member of `z` an expression's call chain starts from (`z.object(...).check(...)` is `object`), if it starts from `z`. */
function zodRoot(node: ts.Expression): string | undefined {
  let current: ts.Expression = node;
  for (;;) {
    if (ts.isCallExpression(current)) current = current.expression;
    else if (ts.isPropertyAccessExpression(current)) {
      if (ts.isIdentifier(current.expression) && current.expression.text === 'z') return current.name.text;
      current = current.expression;
    } else return undefined;
  }
}

export function eagerSchemas(file: string, source: string): string[] {
  const sourceFile = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
  return sourceFile.statements.flatMap((statement) =>
    ts.isVariableStatement(statement)
      ? statement.declarationList.declarations.flatMap((declaration) => {
          const builder = declaration.initializer && zodRoot(declaration.initializer);
          const name = declaration.name.getText(sourceFile);
          if (!builder || notSchemas.has(builder) || eager.has(file) || eager.has(`${file}:${name}`)) return [];
          return [`${file}:${sourceFile.getLineAndCharacterOfPosition(declaration.getStart()).line + 1} ${name} = z.${builder}(…)`];
        })
      : [],
  );
}

describe('schemas at the top of a module', () => {
  it('are built on first use, in every module a function bundles', () => {
    const files = readdirSync(path.join(root, 'functions'), { withFileTypes: true, recursive: true })
      .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
      .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)))
      .filter((file) => !file.startsWith('functions/openapi/'));
    expect(files.flatMap((file) => eagerSchemas(file, readFileSync(path.join(root, file), 'utf8')))).toEqual([]);
  });

  it('are found when eager, through a chain of calls, and left alone when lazy or a check', () => {
    const source = [
      "const a = z.object({ x: z.string() }).check(z.minLength(1));",
      'export const b = z.string();',
      'const c = z.lazy(() => z.string());',
      'const d = z.refine((value: string) => value.length > 0);',
      'const e = notZod.object({});',
      'function f() { const g = z.string(); return g; }',
    ].join('\n');
    expect(eagerSchemas('functions/x.ts', source)).toEqual(['functions/x.ts:1 a = z.object(…)', 'functions/x.ts:2 b = z.string(…)']);
  });
});
