import { writeFileSync } from 'node:fs';
import { openApiDocumentText } from '../functions/openapi/document';

/** `npm run openapi`: writes docs/openapi.json from the route table and the schemas (the staleness test compares the two). */
writeFileSync(new URL('../docs/openapi.json', import.meta.url), openApiDocumentText());
