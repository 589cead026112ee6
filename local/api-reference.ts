import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { ServerResponse } from 'node:http';
import { dirname, join } from 'node:path';
import { openApiDocument } from '../functions/openapi/document';
import { openApiHeaders, openApiPath } from '../functions/routes';

const swaggerUiDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Licensing service API reference</title>
<link rel="stylesheet" href="swagger-ui.css">
</head>
<body>
<div id="reference"></div>
<script src="swagger-ui-bundle.js"></script>
<script src="init.js"></script>
</body>
</html>
`;

// validatorUrl: null keeps the page from sending the document to swagger.io's validator.
const init = `SwaggerUIBundle({ url: '../openapi.json', dom_id: '#reference', deepLinking: true, validatorUrl: null, tryItOutEnabled: false });\n`;

/** Only these names are served: a request path never reaches the file system. */
const files: Record<string, { type: string; body: () => Promise<string | Buffer> }> = {
  '': { type: 'text/html; charset=utf-8', body: async () => page },
  'init.js': { type: 'text/javascript; charset=utf-8', body: async () => init },
  'swagger-ui.css': { type: 'text/css; charset=utf-8', body: () => readFile(join(swaggerUiDir, 'swagger-ui.css')) },
  'swagger-ui-bundle.js': { type: 'text/javascript; charset=utf-8', body: () => readFile(join(swaggerUiDir, 'swagger-ui-bundle.js')) },
};

/** The page is never framed (no clickjacking of its buttons): CSP for current browsers, X-Frame-Options for older ones. */
const headers = {
  'Content-Security-Policy': "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; font-src 'self'; frame-ancestors 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-cache',
};

/**
 * `GET /openapi.json` (the document, generated from the running code, with this
 * server as its server) and `/docs/`, the API reference rendered from it by
 * Swagger UI's prebuilt bundle. Answers false for any other path.
 */
export async function serveApiReference(baseUrl: string, pathname: string, response: ServerResponse): Promise<boolean> {
  if (pathname === openApiPath) {
    response
      .writeHead(200, { ...openApiHeaders, 'Cache-Control': 'no-cache' })
      .end(JSON.stringify(openApiDocument(baseUrl)));
    return true;
  }
  if (pathname === '/docs') {
    response.writeHead(308, { Location: '/docs/' }).end();
    return true;
  }
  if (!pathname.startsWith('/docs/')) return false;
  const file = files[pathname.slice('/docs/'.length)];
  if (!file) {
    response.writeHead(404, { ...headers, 'Content-Type': 'text/plain' }).end('Not found');
    return true;
  }
  response.writeHead(200, { ...headers, 'Content-Type': file.type }).end(await file.body());
  return true;
}
