import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import * as apps from '#data/app.repo';
import { createTable } from '#data/db';
import { keys } from '#data/keys';

const documentMock = mockClient(DynamoDBDocumentClient);
const table = createTable(new DynamoDBClient({ region: 'local' }), 't');

beforeEach(() => documentMock.reset());

describe('app settings write', () => {
  it('sets every setting sent in one update on an application that exists, leaving the others out', async () => {
    documentMock.on(UpdateCommand).resolves({});

    const written = await apps.updateSettings(table, 'app-1', { default_hwid_reset_allowed: false, default_hwid_reset_interval: 86400, offline_token_ttl: undefined });

    expect(written).toBe(true);
    const [call] = documentMock.commandCalls(UpdateCommand);
    expect(call!.args[0].input).toMatchObject({
      Key: keys.app('app-1'),
      UpdateExpression: 'SET #set0 = :set0, #set1 = :set1',
      ExpressionAttributeNames: { '#set0': 'default_hwid_reset_allowed', '#set1': 'default_hwid_reset_interval' },
      ExpressionAttributeValues: { ':set0': false, ':set1': 86400 },
      ConditionExpression: 'attribute_exists(pk)',
    });
  });

  it('writes a secret sent with the settings only where the application has none, in the same update', async () => {
    documentMock.on(UpdateCommand).resolves({});

    await apps.updateSettings(table, 'app-1', { offline_token_ttl: 3600 }, { portal_secret: undefined, trial_secret: 'new-secret' });

    const [call] = documentMock.commandCalls(UpdateCommand);
    expect(call!.args[0].input).toMatchObject({
      UpdateExpression: 'SET #set0 = :set0, #first0 = if_not_exists(#first0, :first0)',
      ExpressionAttributeNames: { '#set0': 'offline_token_ttl', '#first0': 'trial_secret' },
      ExpressionAttributeValues: { ':set0': 3600, ':first0': 'new-secret' },
      ConditionExpression: 'attribute_exists(pk)',
    });
  });

  it('answers false for an application that does not exist, creating nothing', async () => {
    documentMock.on(UpdateCommand).rejects(Object.assign(new Error('The conditional request failed'), { name: 'ConditionalCheckFailedException' }));

    expect(await apps.updateSettings(table, 'gone', { offline_token_ttl: 3600 })).toBe(false);
  });
});
