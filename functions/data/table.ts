import type { CreateTableCommandInput, Projection } from '@aws-sdk/client-dynamodb';

/**
 * The one table definition. The CDK stack, the local store and the tests all
 * build their table from this object, so key names and indexes cannot drift.
 */
export const tableDefinition = {
  partitionKey: 'pk',
  sortKey: 'sk',
  globalSecondaryIndexes: [
    /** Applications per team, subscriptions per app, one license's audit entries: items /auth never writes, whole. */
    { indexName: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk', projection: { type: 'ALL' } },
    /**
     * Licenses per app. Only what a listing filters on is copied: a write that
     * changes no copied attribute (a later /auth's `last_login`, an extension)
     * leaves the index alone and costs the item's write alone. A listing reads
     * the licenses it answers with from the table.
     */
    { indexName: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk', projection: { type: 'INCLUDE', attributes: ['status', 'subscription_id', 'tags'] } },
  ],
  /** Epoch seconds; items carrying it (idempotency records) expire by themselves. */
  timeToLiveAttribute: 'ttl',
  /** The events consumer reads every change with the item before and after it. */
  streamViewType: 'NEW_AND_OLD_IMAGES',
} as const;

export type IndexName = (typeof tableDefinition.globalSecondaryIndexes)[number]['indexName'];

const keyAttributes = [
  tableDefinition.partitionKey,
  tableDefinition.sortKey,
  ...tableDefinition.globalSecondaryIndexes.flatMap((index) => [index.partitionKey, index.sortKey]),
];

type IndexDefinition = (typeof tableDefinition.globalSecondaryIndexes)[number];

function projectionOf(index: IndexDefinition): Projection {
  return index.projection.type === 'INCLUDE'
    ? { ProjectionType: 'INCLUDE', NonKeyAttributes: [...index.projection.attributes] }
    : { ProjectionType: index.projection.type };
}

/** CreateTable input for DynamoDB Local and tests (on-demand, like the deployed table). */
export function createTableInput(tableName: string): CreateTableCommandInput {
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    StreamSpecification: { StreamEnabled: true, StreamViewType: tableDefinition.streamViewType },
    AttributeDefinitions: keyAttributes.map((name) => ({ AttributeName: name, AttributeType: 'S' })),
    KeySchema: [
      { AttributeName: tableDefinition.partitionKey, KeyType: 'HASH' },
      { AttributeName: tableDefinition.sortKey, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: tableDefinition.globalSecondaryIndexes.map((index) => ({
      IndexName: index.indexName,
      KeySchema: [
        { AttributeName: index.partitionKey, KeyType: 'HASH' },
        { AttributeName: index.sortKey, KeyType: 'RANGE' },
      ],
      Projection: projectionOf(index),
    })),
  };
}
