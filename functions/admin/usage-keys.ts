import { randomBytes } from 'node:crypto';
import {
  ConflictException,
  CreateApiKeyCommand,
  CreateUsagePlanKeyCommand,
  GetApiKeysCommand,
  type APIGatewayClient,
} from '@aws-sdk/client-api-gateway';

/**
 * On a deployed stack the authorizer answers with a usage identifier key, and
 * API Gateway meters and throttles the request under the usage-plan key of that
 * value. One gateway key per team makes the plan's limits apply per owner, across
 * all of the owner's API keys. Safe to repeat: an existing key is reused and
 * attaching it twice is not an error.
 */
export function usageKeyRegistrar(client: APIGatewayClient, usagePlanId: string) {
  return async (teamId: string): Promise<string> => {
    const name = `licensing-team-${teamId}`;
    const { items = [] } = await client.send(new GetApiKeysCommand({ nameQuery: name, includeValues: true, limit: 500 }));
    let key = items.find((item) => item.name === name && item.id && item.value);
    if (!key) {
      key = await client.send(
        new CreateApiKeyCommand({ name, enabled: true, value: randomBytes(30).toString('base64url'), description: `Usage key of team ${teamId}` }),
      );
    }
    try {
      await client.send(new CreateUsagePlanKeyCommand({ usagePlanId, keyId: key.id, keyType: 'API_KEY' }));
    } catch (error) {
      if (!(error instanceof ConflictException)) throw error;
    }
    return key.value!;
  };
}
