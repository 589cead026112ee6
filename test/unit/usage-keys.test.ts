import {
  APIGatewayClient,
  ConflictException,
  CreateApiKeyCommand,
  CreateUsagePlanKeyCommand,
  GetApiKeysCommand,
} from '@aws-sdk/client-api-gateway';
import { mockClient } from 'aws-sdk-client-mock';
import { usageKeyRegistrar } from '../../functions/admin/usage-keys';

const gateway = mockClient(APIGatewayClient);
const register = usageKeyRegistrar(new APIGatewayClient({ region: 'us-east-1' }), 'plan-1');

describe('the usage-plan key registrar', () => {
  beforeEach(() => gateway.reset());

  it('creates one gateway key for a new team and attaches it to the usage plan', async () => {
    gateway.on(GetApiKeysCommand).resolves({ items: [] });
    gateway.on(CreateApiKeyCommand).resolves({ id: 'k1', name: 'licensing-team-t1', value: 'v'.repeat(40) });
    gateway.on(CreateUsagePlanKeyCommand).resolves({});

    expect(await register('t1')).toBe('v'.repeat(40));
    const created = gateway.commandCalls(CreateApiKeyCommand)[0]!.args[0].input;
    expect(created).toMatchObject({ name: 'licensing-team-t1', enabled: true });
    expect(created.value!.length).toBeGreaterThanOrEqual(20);
    expect(gateway.commandCalls(CreateUsagePlanKeyCommand)[0]!.args[0].input).toEqual({ usagePlanId: 'plan-1', keyId: 'k1', keyType: 'API_KEY' });
  });

  it('reuses the team’s key for a second API key, tolerating that it is attached already', async () => {
    gateway.on(GetApiKeysCommand).resolves({ items: [{ id: 'k1', name: 'licensing-team-t1', value: 'existing-value-0123456789' }] });
    gateway.on(CreateUsagePlanKeyCommand).rejects(new ConflictException({ message: 'already attached', $metadata: {} }));

    expect(await register('t1')).toBe('existing-value-0123456789');
    expect(gateway.commandCalls(CreateApiKeyCommand)).toHaveLength(0);
  });

  it('ignores keys whose name merely contains the team’s', async () => {
    gateway.on(GetApiKeysCommand).resolves({ items: [{ id: 'k9', name: 'licensing-team-t10', value: 'other-team-value-0123456' }] });
    gateway.on(CreateApiKeyCommand).resolves({ id: 'k2', name: 'licensing-team-t1', value: 'new-value-0123456789' });
    gateway.on(CreateUsagePlanKeyCommand).resolves({});

    expect(await register('t1')).toBe('new-value-0123456789');
  });
});
