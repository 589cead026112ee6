import { readFileSync } from 'node:fs';
import { clientSchemaText, schemaPath } from '../../scripts/client-schema';

describe('the typed client’s schema', () => {
  it('is what openapi-typescript makes of docs/openapi.json (run `npm run client:generate` after `npm run openapi` changed it)', async () => {
    expect(readFileSync(schemaPath, 'utf8')).toBe(await clientSchemaText());
  });
});
