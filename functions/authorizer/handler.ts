import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { authenticateApiKey, type Owner } from '#core/http/api-key-auth';
import { lambdaDepsFromEnv, type Deps } from '#core/deps';
import { ManagementError } from '#core/http/errors';

export function headerValue(headers: Record<string, string | undefined> | null | undefined, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers ?? {})) {
    if (key.toLowerCase() === name) return value;
  }
  return undefined;
}

/**
 * Allow for every method of this API and stage, so one cached decision serves
 * all management routes. A key's role is not written into the policy: a route
 * left out of it would be refused by API Gateway with the ACCESS_DENIED gateway
 * response, whose one fixed status is the 401 an unknown key gets
 * (lib/gateway-responses.ts), where a route the role may not call answers 403.
 * The role travels in the context instead, and every group's handler checks the
 * route against it (functions/access.ts) before reading the body.
 */
function apiWildcard(methodArn: string): string {
  const [arnPrefix, stage] = methodArn.split('/');
  return `${arnPrefix}/${stage}/*`;
}

function policy(effect: 'Allow' | 'Deny', principalId: string, methodArn: string) {
  return {
    principalId,
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: effect, Resource: apiWildcard(methodArn) }],
    },
  };
}

/**
 * What the group handlers learn of the key (functions/core/http/handler.ts).
 * API Gateway passes only strings, numbers and booleans on: the applications
 * are joined by commas (ids hold none), and absent when the key reaches all.
 */
export function authorizerContext(owner: Owner): Record<string, string> {
  return {
    team_id: owner.teamId,
    actor: owner.actor,
    role: owner.role,
    ...(owner.apps ? { apps: owner.apps.join(',') } : {}),
    // A key made by /apikey/create is metered under its team's gateway key, with no call to API Gateway.
    ...(owner.usageIdentifierKey ? { usage_identifier_key: owner.usageIdentifierKey } : {}),
  };
}

/**
 * The REQUEST authorizer in front of every management route, on AWS and on the
 * local server alike. An unknown or revoked key gets a Deny carrying its error
 * code, which the gateway renders as 401 INVALID_API_KEY; a missing header never
 * reaches here on AWS (it is the identity source) and throws like API Gateway's
 * own "Unauthorized".
 */
export async function authorize(deps: Pick<Deps, 'table' | 'logger'>, event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> {
  try {
    const owner = await authenticateApiKey(deps, headerValue(event.headers, 'x-api-key'));
    return {
      ...policy('Allow', owner.teamId, event.methodArn),
      context: authorizerContext(owner),
      ...(owner.usageIdentifierKey ? { usageIdentifierKey: owner.usageIdentifierKey } : {}),
    };
  } catch (error) {
    if (error instanceof ManagementError && error.code === 'INVALID_API_KEY') {
      // Debug only: a flood of bad keys must not become a flood of paid log lines. Never the key itself.
      deps.logger.debug('api key denied', { request_id: event.requestContext?.requestId, method_arn: event.methodArn });
      return { ...policy('Deny', 'anonymous', event.methodArn), context: { error_code: error.code } };
    }
    if (error instanceof ManagementError && error.code === 'MISSING_AUTH') throw new Error('Unauthorized');
    throw error;
  }
}

export const handler = async (event: APIGatewayRequestAuthorizerEvent) => authorize(await lambdaDepsFromEnv(), event);
