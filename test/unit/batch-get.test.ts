import { batchGetItems, itemId } from '#data/batch-get';
import { createDynamoClient, createTable } from '#data/db';
import type { Wire } from '#data/dynamo/client';
import { marshallItem } from '#data/dynamo/marshall';
import { keys } from '#data/keys';

/** A client that sends nothing: each BatchGetItem is recorded and answered with the next scripted answer (the last one repeats). */
const client = createDynamoClient({ region: 'local', dynamodbEndpoint: 'http://127.0.0.1:9' });
const table = createTable(client, 't');
let sent: Wire[] = [];
let answers: Wire[] = [];
client.intercept('attempt', async (call) => {
  sent.push(call.input);
  return answers.length > 1 ? answers.shift()! : answers[0]!;
});

beforeEach(() => {
  sent = [];
  answers = [];
});

const wireKeys = (...itemKeys: object[]) => ({ Keys: itemKeys.map(marshallItem) });

describe('batchGetItems', () => {
  it('retries the keys DynamoDB leaves unprocessed until all are read', async () => {
    const app = { ...keys.app('a'), app_id: 'a' };
    const team = { ...keys.team('t'), team_id: 't' };
    answers = [
      { Responses: { t: [marshallItem(app)] }, UnprocessedKeys: { t: wireKeys(keys.team('t')) } },
      { Responses: { t: [] }, UnprocessedKeys: { t: wireKeys(keys.team('t')) } },
      { Responses: { t: [marshallItem(team)] } },
    ];

    const found = await batchGetItems(table, [keys.app('a'), keys.team('t')], { baseDelayMs: 1 });

    expect(found.get(itemId(keys.app('a')))).toEqual(app);
    expect(found.get(itemId(keys.team('t')))).toEqual(team);
    expect(sent).toHaveLength(3);
    expect(sent[2]!.RequestItems.t).toMatchObject(wireKeys(keys.team('t')));
  });

  it('gives up with an error after the last attempt', async () => {
    answers = [{ Responses: { t: [] }, UnprocessedKeys: { t: wireKeys(keys.app('a')) } }];
    await expect(batchGetItems(table, [keys.app('a')], { maxAttempts: 2, baseDelayMs: 1 })).rejects.toThrow(/unprocessed/);
    expect(sent).toHaveLength(2);
  });

  it('asks once for a key given twice and never for a key too long to exist', async () => {
    answers = [{ Responses: { t: [] } }];
    await batchGetItems(table, [keys.app('a'), keys.app('a'), keys.license('K'.repeat(3000))]);
    expect(sent[0]!.RequestItems.t).toMatchObject(wireKeys(keys.app('a')));
  });

  it('sends no request when no key can exist', async () => {
    expect((await batchGetItems(table, [keys.username('a', 'u'.repeat(2000))])).size).toBe(0);
    expect(sent).toHaveLength(0);
  });
});
