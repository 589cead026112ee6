import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import document from '../../docs/openapi.json' with { type: 'json' };
import { openApiHeaders, openApiPath } from '../routes';

/** Per container: a deployment answers on one or two names (execute-api, a custom domain), each rendered once. */
const rendered = new Map<string, string>();

/**
 * `GET /openapi.json` on the deployed API: the committed document (the staleness
 * test holds it equal to what the code generates, so the function need not
 * carry the schemas and their generator), with the address it was requested at
 * as its server: the stage, or a custom domain's base path.
 */
export async function handler(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const { domainName, path } = event.requestContext;
  const serverUrl = domainName && path?.endsWith(openApiPath) ? `https://${domainName}${path.slice(0, -openApiPath.length)}` : undefined;
  const key = serverUrl ?? '';
  let body = rendered.get(key);
  if (body === undefined) {
    body = JSON.stringify(serverUrl ? { ...document, servers: [{ url: serverUrl }] } : document);
    rendered.set(key, body);
  }
  return {
    statusCode: 200,
    headers: { ...openApiHeaders, 'Cache-Control': 'max-age=300' },
    body,
  };
}
