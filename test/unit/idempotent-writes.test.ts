import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { createTable, deleteExisting, putNew, transactWrite, type Table, type TransactItem } from '#data/db';
import { keys } from '#data/keys';
import * as licenses from '#data/license.repo';
import { licenseRecord } from '../support/fixtures';

const documentMock = mockClient(DynamoDBDocumentClient);
const base = createTable(new DynamoDBClient({ region: 'local' }), 't');
const inRequest = (requestId: string): Table => ({ ...base, requestId });
const item: TransactItem = { Delete: { TableName: 't', Key: keys.app('a'), ConditionExpression: 'attribute_exists(pk)' } };

beforeEach(() => documentMock.reset());

const tokens = () => documentMock.commandCalls(TransactWriteCommand).map((call) => call.args[0].input.ClientRequestToken);

const conditionFailure = (old?: Record<string, unknown>) =>
  Object.assign(new Error('The conditional request failed'), {
    name: 'ConditionalCheckFailedException',
    ...(old ? { Item: marshall(old) } : {}),
  });

describe('transaction tokens', () => {
  it('are the same for the same items within one API request, so a resent transaction is applied once', async () => {
    documentMock.on(TransactWriteCommand).resolves({});

    await transactWrite(inRequest('req-1'), [item]);
    await transactWrite(inRequest('req-1'), [item]);

    const [first, second] = tokens();
    expect(first).toMatch(/^[0-9a-f]{36}$/);
    expect(second).toBe(first);
  });

  it('differ between API requests and between different items, so deliberate repeats stay repeats', async () => {
    documentMock.on(TransactWriteCommand).resolves({});
    const other: TransactItem = { Delete: { TableName: 't', Key: keys.app('b'), ConditionExpression: 'attribute_exists(pk)' } };

    await transactWrite(inRequest('req-1'), [item]);
    await transactWrite(inRequest('req-2'), [item]);
    await transactWrite(inRequest('req-1'), [other]);

    expect(new Set(tokens()).size).toBe(3);
  });

  it('are random outside an API request (admin CLI, scripts)', async () => {
    documentMock.on(TransactWriteCommand).resolves({});

    await transactWrite(base, [item]);
    await transactWrite(base, [item]);

    expect(new Set(tokens()).size).toBe(2);
  });

  it('are kept when a repeat is refused as still in progress after the SDK gave up, until the first attempt ends', async () => {
    documentMock
      .on(TransactWriteCommand)
      .rejectsOnce(Object.assign(new Error('in progress'), { name: 'TransactionInProgressException' }))
      .resolves({});

    await transactWrite(base, [item]);

    const [first, second] = tokens();
    expect(second).toBe(first);
  });
});

describe('single-item writes that must not repeat', () => {
  it('a put-if-new asks for the item that blocked it and counts its own earlier attempt as written', async () => {
    const record = { ...keys.app('a'), app_id: 'a', status: 'active' };
    documentMock.on(PutCommand).rejects(conditionFailure(record));

    expect(await putNew(base, record)).toBe(true);
    expect(documentMock.commandCalls(PutCommand)[0]!.args[0].input).toMatchObject({
      ConditionExpression: 'attribute_not_exists(pk)',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
  });

  it('a put-if-new blocked by another item answers taken', async () => {
    documentMock.on(PutCommand).rejects(conditionFailure({ ...keys.app('a'), app_id: 'a', status: 'inactive' }));

    expect(await putNew(base, { ...keys.app('a'), app_id: 'a', status: 'active' })).toBe(false);
  });

  it('a delete-if-exists is a one-item transaction under the request’s token', async () => {
    documentMock.on(TransactWriteCommand).resolves({});

    expect(await deleteExisting(inRequest('req-1'), keys.app('a'))).toBe(true);

    const input = documentMock.commandCalls(TransactWriteCommand)[0]!.args[0].input;
    expect(input.TransactItems).toEqual([item]);
    expect(input.ClientRequestToken).toBeDefined();
  });

  it('a flip is conditional on the value read and goes through a transaction', async () => {
    documentMock.on(TransactWriteCommand).resolves({});
    const license = licenseRecord(
      { subscription_id: 's', app_id: 'a', team_id: 'team', name: 'n', level: 1, single_key_per_hwid: false, status: 'active', created_at: '' },
      { key: 'K', hwid_lock: false },
    );

    const flipped = await licenses.flip(inRequest('req-1'), license, 'hwid_lock');

    expect(flipped?.hwid_lock).toBe(true);
    expect(documentMock.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems).toEqual([
      {
        Update: {
          TableName: 't',
          Key: keys.license('K'),
          UpdateExpression: 'SET #flag = :new',
          ConditionExpression: 'team_id = :team AND #flag = :old',
          ExpressionAttributeNames: { '#flag': 'hwid_lock' },
          ExpressionAttributeValues: { ':new': true, ':old': false, ':team': 'team' },
        },
      },
    ]);
  });
});
