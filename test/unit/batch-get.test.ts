import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { batchGetItems, itemId } from '#data/batch-get';
import { createTable } from '#data/db';
import { keys } from '#data/keys';

const documentMock = mockClient(DynamoDBDocumentClient);
const table = createTable(new DynamoDBClient({ region: 'local' }), 't');

beforeEach(() => documentMock.reset());

describe('batchGetItems', () => {
  it('retries the keys DynamoDB leaves unprocessed until all are read', async () => {
    const app = { ...keys.app('a'), app_id: 'a' };
    const team = { ...keys.team('t'), team_id: 't' };
    documentMock
      .on(BatchGetCommand)
      .resolvesOnce({ Responses: { t: [app] }, UnprocessedKeys: { t: { Keys: [keys.team('t')] } } })
      .resolvesOnce({ Responses: { t: [] }, UnprocessedKeys: { t: { Keys: [keys.team('t')] } } })
      .resolvesOnce({ Responses: { t: [team] } });

    const found = await batchGetItems(table, [keys.app('a'), keys.team('t')], { baseDelayMs: 1 });

    expect(found.get(itemId(keys.app('a')))).toEqual(app);
    expect(found.get(itemId(keys.team('t')))).toEqual(team);
    const calls = documentMock.commandCalls(BatchGetCommand);
    expect(calls).toHaveLength(3);
    expect(calls[2]!.args[0].input.RequestItems!.t!.Keys).toEqual([keys.team('t')]);
  });

  it('gives up with an error after the last attempt', async () => {
    documentMock.on(BatchGetCommand).resolves({ Responses: { t: [] }, UnprocessedKeys: { t: { Keys: [keys.app('a')] } } });
    await expect(batchGetItems(table, [keys.app('a')], { maxAttempts: 2, baseDelayMs: 1 })).rejects.toThrow(/unprocessed/);
    expect(documentMock.commandCalls(BatchGetCommand)).toHaveLength(2);
  });

  it('asks once for a key given twice and never for a key too long to exist', async () => {
    documentMock.on(BatchGetCommand).resolves({ Responses: { t: [] } });
    await batchGetItems(table, [keys.app('a'), keys.app('a'), keys.license('K'.repeat(3000))]);
    expect(documentMock.commandCalls(BatchGetCommand)[0]!.args[0].input.RequestItems!.t!.Keys).toEqual([keys.app('a')]);
  });

  it('asks for at most 100 keys in one request, as DynamoDB allows', async () => {
    documentMock.on(BatchGetCommand).resolves({ Responses: { t: [] } });
    await batchGetItems(table, Array.from({ length: 150 }, (_, index) => keys.app(`a${index}`)));
    expect(documentMock.commandCalls(BatchGetCommand).map((call) => call.args[0].input.RequestItems!.t!.Keys!.length)).toEqual([100, 50]);
  });

  it('sends no request when no key can exist', async () => {
    expect((await batchGetItems(table, [keys.username('a', 'u'.repeat(2000))])).size).toBe(0);
    expect(documentMock.commandCalls(BatchGetCommand)).toHaveLength(0);
  });
});
