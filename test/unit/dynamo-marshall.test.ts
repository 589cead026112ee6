import { convertItems, marshall, marshallItem, unmarshallItem } from '#data/dynamo/marshall';

describe('attribute values', () => {
  it('marshal every kind of value the repositories store, leaving undefined members out', () => {
    const item = {
      pk: 'LICENSE#K',
      empty: '',
      count: 42,
      ratio: -0.25,
      on: true,
      off: false,
      nothing: null,
      absent: undefined,
      list: ['a', 1, null, undefined, { nested: [true] }],
      map: { hwid: 'device', left: undefined },
      tags: new Set(['x', 'y']),
      numbers: new Set([1, 2]),
      bytes: new Uint8Array([1, 2, 255]),
    };

    expect(marshallItem(item)).toEqual({
      pk: { S: 'LICENSE#K' },
      empty: { S: '' },
      count: { N: '42' },
      ratio: { N: '-0.25' },
      on: { BOOL: true },
      off: { BOOL: false },
      nothing: { NULL: true },
      list: { L: [{ S: 'a' }, { N: '1' }, { NULL: true }, { M: { nested: { L: [{ BOOL: true }] } } }] },
      map: { M: { hwid: { S: 'device' } } },
      tags: { SS: ['x', 'y'] },
      numbers: { NS: ['1', '2'] },
      bytes: { B: 'AQL/' },
    });
  });

  it('unmarshal back to the same values', () => {
    const item = { s: 'v', n: 1.5, big: 1_700_000_000_000, b: false, z: null, l: [1, 'two'], m: { a: { b: 'c' } }, ss: new Set(['a']), bin: new Uint8Array([0, 9]) };
    expect(unmarshallItem(marshallItem(item))).toEqual(item);
  });

  it('keep a member named __proto__ as a member, both ways, without touching any prototype', () => {
    const item = JSON.parse('{"metadata":{"__proto__":{"admin":true},"plan":"pro"}}') as Record<string, unknown>;

    const wire = marshallItem(item);
    const back = unmarshallItem(wire) as { metadata: Record<string, unknown> };

    expect(Object.keys((wire.metadata as { M: object }).M)).toEqual(['__proto__', 'plan']);
    expect(Object.keys(back.metadata)).toEqual(['__proto__', 'plan']);
    expect(Object.getPrototypeOf(back.metadata)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it('refuse what DynamoDB cannot store instead of sending it', () => {
    expect(() => marshall(Number.NaN)).toThrow(/cannot be stored/);
    expect(() => marshall(Number.POSITIVE_INFINITY)).toThrow(/cannot be stored/);
    expect(() => marshall(new Set())).toThrow(/empty set/);
    expect(() => marshall(new Date(0))).toThrow(/Date cannot be stored/);
    expect(() => marshall(() => 1)).toThrow(/function cannot be stored/);
  });
});

describe('converting requests and answers', () => {
  const key = { pk: 'A', sk: 'B' };
  const wireKey = { pk: { S: 'A' }, sk: { S: 'B' } };

  it('converts keys, items and values in transactions and batches, and nothing else', () => {
    const request = {
      TransactItems: [
        { Put: { TableName: 't', Item: { ...key, n: 1 }, ConditionExpression: 'attribute_not_exists(pk)' } },
        { Update: { TableName: 't', Key: key, UpdateExpression: 'SET #a = :v', ExpressionAttributeNames: { '#a': 'a' }, ExpressionAttributeValues: { ':v': 'x' } } },
        { Delete: { TableName: 't', Key: key } },
        { ConditionCheck: { TableName: 't', Key: key, ConditionExpression: 'attribute_exists(pk)' } },
      ],
      RequestItems: { Key: { Keys: [key] }, other: [{ PutRequest: { Item: key } }, { DeleteRequest: { Key: key } }] },
      ExclusiveStartKey: key,
    };

    expect(convertItems(request, marshallItem)).toEqual({
      TransactItems: [
        { Put: { TableName: 't', Item: { ...wireKey, n: { N: '1' } }, ConditionExpression: 'attribute_not_exists(pk)' } },
        { Update: { TableName: 't', Key: wireKey, UpdateExpression: 'SET #a = :v', ExpressionAttributeNames: { '#a': 'a' }, ExpressionAttributeValues: { ':v': { S: 'x' } } } },
        { Delete: { TableName: 't', Key: wireKey } },
        { ConditionCheck: { TableName: 't', Key: wireKey, ConditionExpression: 'attribute_exists(pk)' } },
      ],
      RequestItems: { Key: { Keys: [wireKey] }, other: [{ PutRequest: { Item: wireKey } }, { DeleteRequest: { Key: wireKey } }] },
      ExclusiveStartKey: wireKey,
    });
  });

  it('converts every item of an answer: pages, batch responses, unprocessed work and cancellation reasons', () => {
    const answer = {
      Items: [wireKey],
      LastEvaluatedKey: wireKey,
      Attributes: wireKey,
      Responses: { t: [wireKey] },
      UnprocessedKeys: { t: { Keys: [wireKey] } },
      UnprocessedItems: { t: [{ DeleteRequest: { Key: wireKey } }] },
      CancellationReasons: [{ Code: 'ConditionalCheckFailed', Item: wireKey }, { Code: 'None' }],
      ConsumedCapacity: [{ TableName: 't', CapacityUnits: 1 }],
      Count: 1,
    };

    expect(convertItems(answer, unmarshallItem)).toEqual({
      Items: [key],
      LastEvaluatedKey: key,
      Attributes: key,
      Responses: { t: [key] },
      UnprocessedKeys: { t: { Keys: [key] } },
      UnprocessedItems: { t: [{ DeleteRequest: { Key: key } }] },
      CancellationReasons: [{ Code: 'ConditionalCheckFailed', Item: key }, { Code: 'None' }],
      ConsumedCapacity: [{ TableName: 't', CapacityUnits: 1 }],
      Count: 1,
    });
  });
});
