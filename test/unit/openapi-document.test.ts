import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { openApiDocument, openApiDocumentText } from '../../functions/openapi/document';
import { handler } from '../../functions/openapi/handler';
import { inboundRoutes, routes } from '../../functions/routes';
import { committedDocument, documentPath, documentValidator } from '../support/openapi';

describe('the OpenAPI document', () => {
  it('committed as docs/openapi.json is what the code generates (run `npm run openapi` after changing a route or schema)', () => {
    expect(readFileSync(documentPath, 'utf8')).toBe(openApiDocumentText());
  });

  it('is a valid OpenAPI 3.1 document by the specification\'s own schema', async () => {
    const validator = new Validator();
    const result = await validator.validate(committedDocument());
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('has every route of the route table and every inbound route, and no path the table lacks, each as POST only', () => {
    const document = committedDocument();
    expect(Object.keys(document.paths).sort()).toEqual([...routes, ...inboundRoutes].map((route) => route.path).sort());
    for (const item of Object.values(document.paths) as Record<string, unknown>[]) expect(Object.keys(item)).toEqual(['post']);
  });

  it('needs the API key on management routes, none on client routes, and a portal session where a customer acts', () => {
    const document = committedDocument();
    for (const route of routes) {
      const security = document.paths[route.path].post.security;
      // Portal routes take no API key; those that act for a signed-in customer take the session's bearer token.
      const portalSecurity = ['/portal/sign-out', '/portal/licenses', '/portal/release-device', '/portal/license-file', '/portal/billing'].includes(route.path) ? [{ PortalSession: [] }] : [];
      expect([route.path, security]).toEqual([route.path, route.group === 'client' ? [] : route.group === 'portal' ? portalSecurity : [{ ApiKey: [] }]]);
    }
    expect(document.components.securitySchemes.ApiKey).toEqual(expect.objectContaining({ type: 'apiKey', in: 'header', name: 'x-api-key' }));
  });

  it('needs no API key on an inbound route, whose caller signs its body instead', () => {
    const document = committedDocument();
    for (const route of inboundRoutes) {
      const operation = document.paths[route.path].post;
      expect(operation.security).toEqual([]);
      expect(operation.parameters.map((parameter: { name: string; in: string }) => `${parameter.in}:${parameter.name}`)).toEqual(['path:app_id', 'header:Stripe-Signature']);
      expect(Object.keys(operation.responses['429'].headers)).toEqual(['Retry-After']);
    }
  });

  it('documents 429 with Retry-After on every route, and the signature headers on the client routes', () => {
    const document = committedDocument();
    for (const route of routes) {
      const responses = document.paths[route.path].post.responses;
      expect([route.path, Object.keys(responses['429'].headers)]).toEqual([route.path, ['Retry-After']]);
      if (route.group === 'client') {
        expect(Object.keys(responses['200'].headers)).toEqual(['Content-Digest', 'Signature-Input', 'Signature']);
      }
    }
  });

  it('compiles under strict Ajv, and each example matches the schema beside it', () => {
    expect(documentValidator(committedDocument()).exampleProblems()).toEqual([]);
  });

  it('names the server it is served from', () => {
    expect(openApiDocument('https://api.example.com/prod').servers).toEqual([{ url: 'https://api.example.com/prod' }]);
  });

  it('is answered by the deployed function with the stage or custom domain it was asked at as its server', async () => {
    const asked = (domainName: string, path: string) => ({ requestContext: { domainName, path } }) as unknown as APIGatewayProxyEvent;
    const staged = await handler(asked('abc123.execute-api.eu-west-1.amazonaws.com', '/prod/openapi.json'));
    expect(staged.statusCode).toBe(200);
    expect(staged.headers).toEqual(expect.objectContaining({ 'Content-Type': 'application/json', 'Access-Control-Allow-Origin': '*', 'X-Content-Type-Options': 'nosniff' }));
    const document = JSON.parse(staged.body);
    expect(document.servers).toEqual([{ url: 'https://abc123.execute-api.eu-west-1.amazonaws.com/prod' }]);
    expect(Object.keys(document.paths)).toHaveLength(routes.length + inboundRoutes.length);
    const custom = JSON.parse((await handler(asked('licensing.example.com', '/openapi.json'))).body);
    expect(custom.servers).toEqual([{ url: 'https://licensing.example.com' }]);
  });
});
