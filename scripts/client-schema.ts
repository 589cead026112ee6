import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';

/**
 * `npm run client:generate`: the typed client's `src/schema.d.ts` from docs/openapi.json,
 * through openapi-typescript's Node API, as its CLI would write it with
 * `--default-non-nullable false`; the staleness test calls the same function.
 * That option keeps a request field with a default (`hwid_lock`, `per_page`)
 * optional, as the server accepts it, instead of requiring every caller to send it.
 */
export const documentPath = fileURLToPath(new URL('../docs/openapi.json', import.meta.url));
export const schemaPath = fileURLToPath(new URL('../clients/typescript/src/schema.d.ts', import.meta.url));

export async function clientSchemaText(documentText: string = readFileSync(documentPath, 'utf8')): Promise<string> {
  return `${COMMENT_HEADER}${astToString(await openapiTS(JSON.parse(documentText), { defaultNonNullable: false, silent: true }))}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) writeFileSync(schemaPath, await clientSchemaText());
