import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import type { Deps } from '#core/deps';
import { newApiKey, sha256Hex } from '#core/ids';
import { createLogger } from '#core/logger';
import { keys } from '#data/keys';
import type { ApiKeyRecord } from '#data/model/api-key';
import { authorize } from '../../functions/authorizer/handler';

const methodArn = 'arn:aws:execute-api:eu-central-1:123456789012:abc123/prod/POST/license/get';
const validKey = newApiKey();

/** An API key store that counts its reads: each one is a DynamoDB GetItem on AWS. */
function countingStore(extra: Partial<ApiKeyRecord> = {}) {
  const reads: string[] = [];
  const record: ApiKeyRecord = { key_hash: sha256Hex(validKey), team_id: 'team-1', status: 'active', created_at: '2026-01-01T00:00:00.000Z', ...extra };
  const stored = keys.apiKey(record.key_hash);
  const send = async (command: object) => {
    if (!(command instanceof GetCommand)) throw new Error(`the authorizer reads API keys only, not ${command.constructor.name}`);
    reads.push(command.input.Key!.pk);
    return { Item: command.input.Key!.pk === stored.pk ? { ...stored, ...record } : undefined };
  };
  const deps = { logger: createLogger('silent'), table: { doc: { send }, name: 'keys' } } as unknown as Pick<Deps, 'table' | 'logger'>;
  return { deps, reads };
}

const event = (apiKey: string) => ({ type: 'REQUEST', methodArn, headers: { 'x-api-key': apiKey } }) as unknown as APIGatewayRequestAuthorizerEvent;
const effectOf = (result: Awaited<ReturnType<typeof authorize>>) => result.policyDocument.Statement[0]!.Effect;

describe('the API key authorizer', () => {
  it.each([
    ['a word', 'hello'],
    ['the prefix alone', 'lsk_'],
    ['too few characters', `lsk_${'a'.repeat(39)}`],
    ['a character outside base62', `lsk_${'a'.repeat(42)}-`],
    ['another prefix', `sk_${'a'.repeat(43)}`],
    ['a huge header', `lsk_${'a'.repeat(10_000)}`],
  ])('denies %s without reading the table', async (_, apiKey) => {
    const { deps, reads } = countingStore();
    const result = await authorize(deps, event(apiKey));
    expect(effectOf(result)).toBe('Deny');
    expect(result.context).toEqual({ error_code: 'INVALID_API_KEY' });
    expect(reads).toEqual([]);
  });

  it('reads the table once for a well-formed key, allowing a known one and denying an unknown one', async () => {
    const { deps, reads } = countingStore();
    expect(effectOf(await authorize(deps, event(validKey)))).toBe('Allow');
    expect(effectOf(await authorize(deps, event(`lsk_${'Z'.repeat(40)}`)))).toBe('Deny');
    expect(reads).toHaveLength(2);
  });

  it('allows the whole stage, one cached verdict for every route, and hands the key’s role and applications to the handlers', async () => {
    const limited = await authorize(countingStore({ role: 'support', apps: ['app-1', 'app-2'], usage_identifier_key: 'usage-1' }).deps, event(validKey));
    expect(limited.policyDocument.Statement).toEqual([{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: 'arn:aws:execute-api:eu-central-1:123456789012:abc123/prod/*' }]);
    expect(limited.context).toEqual({ team_id: 'team-1', actor: expect.stringMatching(/^api_key:/), role: 'support', apps: 'app-1,app-2', usage_identifier_key: 'usage-1' });
    expect(limited.usageIdentifierKey).toBe('usage-1');
  });

  it('gives a key stored before roles the admin role and every application', async () => {
    const result = await authorize(countingStore().deps, event(validKey));
    expect(result.context).toEqual({ team_id: 'team-1', actor: expect.stringMatching(/^api_key:/), role: 'admin' });
  });
});
