import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';

/**
 * `npm run client:generate`: the typed client's `src/schema.d.ts` from docs/openapi.json,
 * through openapi-typescript's Node API with its defaults, exactly as its CLI would
 * write it; the staleness test calls the same function.
 */
export const documentPath = fileURLToPath(new URL('../docs/openapi.json', import.meta.url));
export const schemaPath = fileURLToPath(new URL('../clients/typescript/src/schema.d.ts', import.meta.url));

export async function clientSchemaText(documentText: string = readFileSync(documentPath, 'utf8')): Promise<string> {
  return `${COMMENT_HEADER}${astToString(await openapiTS(JSON.parse(documentText), { silent: true }))}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) writeFileSync(schemaPath, await clientSchemaText());
