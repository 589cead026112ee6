import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { managementErrors } from '#core/http/errors';
import { routes, sideOf } from '../../functions/routes';

/**
 * docs/client-api.md and docs/management-api.md are the reference of the interface
 * (docs/development.md#conventions): every message and code the OpenAPI document
 * (generated from the routes' contracts) lets a route answer is on its page, and
 * each management code with the status it is answered with.
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const read = (file: string) => readFileSync(join(root, file), 'utf8');
const openapi = JSON.parse(read('docs/openapi.json')) as {
  paths: Record<string, { post: { responses: Record<string, unknown> } }>;
  components: { schemas: Record<string, unknown> };
};
const clientPaths = new Set<string>(routes.filter((route) => sideOf(route.group) === 'client').map((route) => route.path));

/** The values a response schema allows for `field`, by `enum` or `const`, at any depth, through `$ref`s. */
function allowed(schema: unknown, field: string): string[] {
  if (!schema || typeof schema !== 'object') return [];
  const ref = (schema as { $ref?: string }).$ref;
  if (ref?.startsWith('#/components/schemas/')) return allowed(openapi.components.schemas[ref.slice('#/components/schemas/'.length)], field);
  const own = (schema as Record<string, unknown>).properties as Record<string, { enum?: string[]; const?: string }> | undefined;
  const here = own?.[field] ? [...(own[field].enum ?? []), ...(own[field].const === undefined ? [] : [own[field].const])] : [];
  return [...here, ...Object.values(schema).flatMap((value) => allowed(value, field))];
}

/** [path, status, value] for every `field` value a route of `side` may answer. */
function answers(side: 'client' | 'management', field: string): [string, string, string][] {
  return Object.entries(openapi.paths)
    .filter(([path]) => clientPaths.has(path) === (side === 'client'))
    .flatMap(([path, item]) => Object.entries(item.post.responses).flatMap(([status, response]) => allowed(response, field).map((value): [string, string, string] => [path, status, value])));
}

describe('the interface pages', () => {
  it('find messages and codes in the OpenAPI document, so the checks below compare something', () => {
    expect(answers('client', 'message').map(([, , value]) => value)).toEqual(
      expect.arrayContaining(['Invalid JSON in request body', 'HWID_MISMATCH', 'HWID_RESET', 'LICENSE_VERIFIED_USED_AND_LOCKED_KEY', 'License credentials updated successfully']),
    );
    expect(answers('management', 'error_code').map(([, , value]) => value)).toEqual(expect.arrayContaining(['MISSING_AUTH', 'LICENSE_NOT_FOUND', 'SERVER_ERROR']));
  });

  it('docs/client-api.md names every message a client route may answer', () => {
    const page = read('docs/client-api.md');
    const missing = answers('client', 'message').filter(([, , message]) => !page.includes(`\`${message}\``));
    expect([...new Set(missing.map(([path, status, message]) => `${message} (${status} on ${path})`))]).toEqual([]);
  });

  it('the error table of docs/management-api.md gives every code of the catalogue with its status and message', () => {
    const rows = new Map([...read('docs/management-api.md').matchAll(/^\| `([A-Z_]+)` \| (\d{3}) \| ([^|]+) \|/gm)].map(([, code, status, message]) => [code!, { status: Number(status), message: message!.trim() }]));
    const wrong = Object.entries(managementErrors).filter(([code, { status, message }]) => {
      const row = rows.get(code);
      // INVALID_INPUT's message names the failing field; the catalogue's is only its fallback.
      return !row || row.status !== status || (code !== 'INVALID_INPUT' && row.message !== `\`${message}\``);
    });
    expect(wrong.map(([code]) => code)).toEqual([]);
  });

  it('the error table of docs/management-api.md gives every management code with each status it is answered with', () => {
    const table = new Set([...read('docs/management-api.md').matchAll(/^\| `([A-Z_]+)` \| (\d{3}) \|/gm)].map(([, code, status]) => `${code} ${status}`));
    const missing = answers('management', 'error_code').filter(([, status, code]) => !table.has(`${code} ${status}`));
    expect([...new Set(missing.map(([, status, code]) => `${code} ${status}`))]).toEqual([]);
  });
});
