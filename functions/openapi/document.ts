import * as z from 'zod/mini';
import { clientMessages, managementErrors } from '#core/http/errors';
import { appIdField, subscriptionIdField } from '#core/domain/fields';
import { findRoute, groups, inboundRoutes, routes, sideOf, type RoutePath } from '../routes';
import * as answers from './answers';
import { commonManagementErrors, commonPortalErrors, contracts, isClientContract, type ClientContract, type ManagementContract } from './contracts';

type Json = Record<string, unknown>;

export const documentInfo = {
  title: 'Licensing service',
  version: '0.1.0',
};

const componentRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** `/license/create-bulk` → `licenseCreateBulk`, the operationId and the stem of its schema names. */
export function operationId(path: string): string {
  return path
    .slice(1)
    .split(/[/-]/)
    .map((part, index) => (index === 0 ? part : part[0]!.toUpperCase() + part.slice(1)))
    .join('');
}

const schemaName = (path: string, suffix: string) => {
  const id = operationId(path);
  return `${id[0]!.toUpperCase()}${id.slice(1)}${suffix}`;
};

/** Named answer parts: they become components and are referenced where a route's answer holds them. */
const sharedAnswers = {
  LicenseRecord: answers.licenseRecord,
  BulkResult: answers.bulkResult,
  SubscriptionRecord: answers.subscriptionRecord,
  BlacklistEntry: answers.blacklistEntry,
  AuthData: answers.authData,
};

/**
 * zod's JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1), one registry per
 * direction: request bodies as accepted (defaults make a field optional),
 * answers as sent. `uri` turns cross references into component references.
 */
function componentSchemas(entries: [string, z.ZodMiniType][], io: 'input' | 'output'): Record<string, Json> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of entries) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, {
    target: 'draft-2020-12',
    io,
    uri: (id) => `#/components/schemas/${id}`,
    // Refinements (a metadata size rule) have no JSON form; their 400s are documented in words.
    unrepresentable: 'any',
    override: ({ zodSchema, jsonSchema }) => {
      // The identifiers are checked by a function (its message names the field); their JSON form is the standard format.
      if (zodSchema === appIdField || zodSchema === subscriptionIdField) jsonSchema.format = 'uuid';
    },
  });
  return Object.fromEntries(
    Object.entries(schemas).map(([id, schema]) => {
      const { $schema: _dialect, $id: _id, ...rest } = schema as Json;
      return [id, rest];
    }),
  );
}

function successBody(contract: ManagementContract): z.ZodMiniType {
  if (contract.bare) return z.strictObject({ success: z.literal(true) });
  return z.strictObject({
    success: z.literal(true),
    data: contract.answer,
    ...(contract.list ? { next_cursor: z.nullable(z.string()) } : {}),
  });
}

function clientSuccessBody(contract: ClientContract): z.ZodMiniType {
  return z.strictObject({
    success: z.literal(true),
    message: z.enum(contract.successMessages as [string, ...string[]]),
    ...(contract.answer ? { data: contract.answer } : {}),
  });
}

const signatureHeaders = {
  'Content-Digest': { $ref: '#/components/headers/Content-Digest' },
  'Signature-Input': { $ref: '#/components/headers/Signature-Input' },
  Signature: { $ref: '#/components/headers/Signature' },
};
const retryAfter = { 'Retry-After': { $ref: '#/components/headers/Retry-After' } };

const json = (schema: Json, example?: unknown) => ({ 'application/json': { schema, ...(example === undefined ? {} : { example }) } });

/** A route some API-key role may not call answers ACCESS_DENIED to those keys (docs/api-keys.md); portal routes take no key. */
function roleErrors(path: RoutePath): ManagementContract['errors'] {
  const access = findRoute(path)?.access;
  return access === 'read' || access === 'customer' ? [] : ['ACCESS_DENIED'];
}

const isPortalRoute = (path: RoutePath): boolean => findRoute(path)?.access === 'customer';

function managementErrorResponses(path: RoutePath, contract: ManagementContract): Record<string, Json> {
  const byStatus = new Map<number, string[]>();
  const common = isPortalRoute(path) ? [...commonPortalErrors, ...(contract.session ? (['INVALID_SESSION'] as const) : [])] : commonManagementErrors;
  for (const code of new Set([...common, ...roleErrors(path), ...contract.errors])) {
    const { status } = managementErrors[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  if (contract.clientFailures) byStatus.set(403, [...(byStatus.get(403) ?? []), ...contract.clientFailures]);
  const responses: Record<string, Json> = {};
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[String(status)] = {
      description: codes.join(', '),
      ...(status === 429 ? { headers: retryAfter } : {}),
      content: json({
        allOf: [componentRef('ManagementError'), { type: 'object', properties: { error_code: { enum: codes } } }],
      }),
    };
  }
  return responses;
}

/** The client 403s that carry `data`: the code, and the component name and schema of its `data`. */
const failureData: Partial<Record<string, [name: string, schema: z.ZodMiniType]>> = {
  LICENSE_EXPIRED: ['LicenseExpiredData', answers.licenseExpiredData],
  HWID_MISMATCH: ['HwidMismatchData', answers.hwidMismatchData],
  HWID_RESET_COOLDOWN: ['HwidResetCooldownData', answers.hwidResetCooldownData],
  SEATS_EXHAUSTED: ['SeatsExhaustedData', answers.seatsExhaustedData],
  LEASE_BORROWED: ['LeaseBorrowedData', answers.leaseBorrowedData],
  USAGE_LIMIT_REACHED: ['UsageCounter', answers.usageCounter],
  TRIAL_EXPIRED: ['LicenseExpiredData', answers.licenseExpiredData],
};

/** 403 bodies: the codes with `data` get their own shape, the rest share one. */
function clientFailureSchema(failures: readonly string[]): Json {
  const plain = failures.filter((code) => !(code in failureData));
  const variants: Json[] = failures
    .filter((code) => code in failureData)
    .map((code) => ({
      type: 'object',
      properties: { success: { const: false }, message: { const: code }, data: componentRef(failureData[code]![0]) },
      required: ['success', 'message', 'data'],
      additionalProperties: false,
    }));
  if (plain.length > 0) {
    variants.push({
      type: 'object',
      properties: { success: { const: false }, message: { enum: plain } },
      required: ['success', 'message'],
      additionalProperties: false,
    });
  }
  return { oneOf: variants };
}

function clientOperation(path: RoutePath, contract: ClientContract): Json {
  const failure = (messages: readonly string[]) => ({
    allOf: [componentRef('ClientError'), { type: 'object', properties: { message: { enum: messages } } }],
  });
  return {
    operationId: operationId(path),
    tags: [contract.tag],
    summary: contract.summary,
    description: contract.description,
    security: [],
    parameters: [{ $ref: '#/components/parameters/Accept-Signature' }, { $ref: '#/components/parameters/Content-Digest' }],
    requestBody: { required: true, content: json(componentRef(schemaName(path, 'Request')), contract.requestExample) },
    responses: {
      '200': { description: contract.successMessages.join(', '), headers: signatureHeaders, content: json(componentRef(schemaName(path, 'Answer')), contract.answerExample) },
      '400': { description: contract.badRequest.join('; '), headers: signatureHeaders, content: json(failure(contract.badRequest)) },
      '403': {
        description: contract.failures.join(', '),
        headers: signatureHeaders,
        content: json(clientFailureSchema(contract.failures), { success: false, message: contract.failures[0] }),
      },
      '413': { description: clientMessages.bodyTooLarge, headers: signatureHeaders, content: json(failure([clientMessages.bodyTooLarge])) },
      '429': { description: 'RATE_LIMITED: the application sent too many requests', headers: retryAfter, content: json(failure(['RATE_LIMITED'])) },
      '500': { description: clientMessages.serverError, headers: signatureHeaders, content: json(failure([clientMessages.serverError])) },
    },
  };
}

function managementOperation(path: RoutePath, contract: ManagementContract): Json {
  const security = isPortalRoute(path) ? (contract.session ? [{ PortalSession: [] }] : []) : [{ ApiKey: [] }];
  return {
    operationId: operationId(path),
    tags: [contract.tag],
    summary: contract.summary,
    ...(contract.description ? { description: contract.description } : {}),
    security,
    requestBody: { required: true, content: json(componentRef(schemaName(path, 'Request')), contract.requestExample) },
    responses: {
      [String(contract.bare ?? 200)]: {
        description: contract.bare === 202 ? 'Accepted' : 'Done',
        content: json(
          componentRef(schemaName(path, 'Answer')),
          contract.bare ? { success: true } : { success: true, data: contract.answerExample, ...(contract.list ? { next_cursor: null } : {}) },
        ),
      },
      ...managementErrorResponses(path, contract),
    },
  };
}

/**
 * POST /stripe/webhook/{app_id}: Stripe's own event body, verified by its
 * signature; no API key. Stripe only reads the status: 2xx is received, anything
 * else is sent again later.
 */
function stripeWebhookOperation(): Json {
  const refused = (description: string, codes: string[]) => ({
    description,
    content: json({ allOf: [componentRef('ManagementError'), { type: 'object', properties: { error_code: { enum: codes } } }] }),
  });
  return {
    operationId: 'stripeWebhook',
    tags: ['Stripe'],
    summary: "Stripe's events for an application",
    description:
      "The URL to give the application's Stripe webhook endpoint (docs/stripe.md). The body is verified against `Stripe-Signature` with the endpoint's signing secret (Stripe's 300-second tolerance) before anything else. `checkout.session.completed`, `invoice.paid`, `customer.subscription.deleted` and `charge.refunded` change licenses, each event once however often Stripe sends it; other types and unmapped prices are answered 200 and change nothing.",
    security: [],
    parameters: [
      { name: 'app_id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } },
      { name: 'Stripe-Signature', in: 'header', required: true, description: "Stripe's signature of the body: `t=<unix seconds>,v1=<hex HMAC-SHA256>`.", schema: { type: 'string' } },
    ],
    requestBody: {
      required: true,
      content: json(
        { type: 'object', description: 'A Stripe event as Stripe sends it.', properties: { id: { type: 'string' }, type: { type: 'string' }, data: { type: 'object' } }, required: ['id', 'type', 'data'] },
        { id: 'evt_1QaZ2bC3dE4fG5hI', object: 'event', type: 'checkout.session.completed', data: { object: { id: 'cs_test_a1B2c3D4e5F6g7H8', object: 'checkout.session' } } },
      ),
    },
    responses: {
      '200': {
        description: 'Received: applied now, applied before, or nothing to change',
        content: json({ type: 'object', properties: { received: { const: true } }, required: ['received'], additionalProperties: false }, { received: true }),
      },
      '400': refused('INVALID_INPUT: a body that is not JSON, or a signature that does not verify (also when the application has no Stripe connection)', ['INVALID_INPUT']),
      '413': refused('PAYLOAD_TOO_LARGE', ['PAYLOAD_TOO_LARGE']),
      '429': { ...refused('RATE_LIMITED: the route\'s own throttle', ['RATE_LIMITED']), headers: retryAfter },
      '500': refused('SERVER_ERROR: Stripe sends the event again later', ['SERVER_ERROR']),
    },
  };
}

const description = [
  'Licensing for desktop and mobile software: client applications authenticate end users by license key (or username and password) and may bind a license to a device; owners manage licenses, subscription tiers, device rules, metadata and blacklists with an API key.',
  '',
  'Every route is `POST` with a JSON body. Client routes (`/auth`, `/register`, `/reset-hwid`) answer `{success, message, data?}` and need no key; management routes answer `{success: true, data}` (lists add `next_cursor`) or `{error, error_code}`, and need the `x-api-key` header.',
  '',
  'A `429` carries `Retry-After` in seconds: wait that long (or back off 1 s, 4 s, 10 s) and send the request again; every write is safe to repeat.',
].join('\n');

/** The whole document; `serverUrl` is where this deployment answers. */
export function openApiDocument(serverUrl?: string): Json {
  const requestSchemas = componentSchemas(
    routes.map((route) => [schemaName(route.path, 'Request'), contracts[route.path].request]),
    'input',
  );
  const answerSchemas = componentSchemas(
    [
      ...Object.entries(sharedAnswers),
      ...Object.values(failureData).map((entry) => entry!),
      ...routes.map((route): [string, z.ZodMiniType] => {
        const contract = contracts[route.path];
        return [schemaName(route.path, 'Answer'), isClientContract(contract) ? clientSuccessBody(contract) : successBody(contract)];
      }),
    ],
    'output',
  );

  const paths: Record<string, Json> = {};
  for (const group of groups) {
    for (const route of routes.filter((candidate) => candidate.group === group)) {
      const contract = contracts[route.path];
      paths[route.path] = {
        post: sideOf(route.group) === 'client' && isClientContract(contract) ? clientOperation(route.path, contract) : managementOperation(route.path, contract as ManagementContract),
      };
    }
  }
  for (const route of inboundRoutes) paths[route.path] = { post: stripeWebhookOperation() };

  return {
    openapi: '3.1.0',
    info: { ...documentInfo, description },
    ...(serverUrl ? { servers: [{ url: serverUrl }] } : {}),
    tags: [
      { name: 'Client', description: 'Called by your application on the end user’s machine; no API key.' },
      { name: 'Licenses', description: 'Create, extend, pause, delete and query licenses.' },
      { name: 'Devices', description: 'HWID binding, seats and reset rules.' },
      { name: 'Subscriptions', description: 'Subscription tiers of an application.' },
      { name: 'Blacklists', description: 'Countries, ASNs, IP addresses and networks, HWIDs refused by /auth.' },
      { name: 'Applications', description: 'Applications, their signing keys, settings, statistics and audit log.' },
      { name: 'API keys', description: 'Your team\'s API keys, their roles and the applications they may reach (docs/api-keys.md).' },
      { name: 'Webhooks', description: 'Signed deliveries of events to your HTTPS endpoints, with retries and a delivery log.' },
      { name: 'Stripe', description: 'Selling through Stripe Checkout: the connection, the licenses of a Checkout Session, and the endpoint Stripe posts its events to.' },
      { name: 'Customer portal', description: 'Called by the customer portal for your customers, never with an API key: sign-in by emailed code, then a session token (docs/portal.md).' },
    ],
    paths,
    components: {
      securitySchemes: {
        ApiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'The API key the admin CLI printed for your team.' },
        PortalSession: { type: 'http', scheme: 'bearer', description: 'A customer portal session token (`lps_…`) from POST /portal/verify, valid for an hour.' },
      },
      parameters: {
        'Accept-Signature': {
          name: 'Accept-Signature',
          in: 'header',
          required: false,
          description: 'RFC 9421 Accept-Signature with a `nonce` parameter: the answer\'s `Signature-Input` carries it (the body\'s `nonce` does the same).',
          schema: { type: 'string' },
          example: 'sig1=("@status" "content-digest");nonce="4f1c9a7e2b"',
        },
        'Content-Digest': {
          name: 'Content-Digest',
          in: 'header',
          required: false,
          description:
            'RFC 9530 digest of the request body bytes (`sha-256`, `sha-512`, or both). When it matches, the answer\'s signature also covers it as `"content-digest";req` (RFC 9421 section 2.4), so the answer verifies only against this request; a digest that differs, names no known algorithm or is malformed answers 400 `Invalid Content-Digest`.',
          schema: { type: 'string' },
          example: 'sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:',
        },
      },
      headers: {
        'Retry-After': { description: 'Seconds to wait before sending the request again.', required: true, schema: { type: 'string', pattern: '^[0-9]+$' } },
        'Content-Digest': { description: 'RFC 9530 `sha-256` digest of the body; present on answers the service signed.', schema: { type: 'string' } },
        'Signature-Input': {
          description: 'RFC 9421 signature parameters: covered components (`"content-digest";req` too when the request sent a matching `Content-Digest`), `created`, `keyid`, `alg`, and the request\'s `nonce`.',
          schema: { type: 'string' },
        },
        Signature: { description: 'RFC 9421 Ed25519 signature by the application key (see `/app/signing-key`).', schema: { type: 'string' } },
      },
      schemas: {
        ManagementError: {
          type: 'object',
          properties: { error: { type: 'string' }, error_code: { type: 'string' } },
          required: ['error', 'error_code'],
        },
        ClientError: {
          type: 'object',
          properties: { success: { const: false }, message: { type: 'string' } },
          required: ['success', 'message'],
        },
        ...requestSchemas,
        ...answerSchemas,
      },
    },
  };
}

/** The committed form (docs/openapi.json): no server, so it is the same wherever it is generated. */
export function openApiDocumentText(): string {
  return `${JSON.stringify(openApiDocument(), null, 2)}\n`;
}
