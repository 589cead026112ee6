import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BatchWriteCommand, GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Table } from '#data/db';

const items = 1000;
const baselineKey = (i: number) => ({ pk: `BENCH#${i}`, sk: 'BENCH' });

export const baselineRequests = Array.from({ length: items }, (_, i) => ({ path: '/', body: JSON.stringify({ i }) }));

/** The same requests for the transaction floor: the write a `/usage` with a `usage_id` makes. */
export const baselineTransactionRequests = baselineRequests.map((request) => ({ ...request, path: '/transaction' }));

/**
 * The floor under any /auth: an HTTP server on the same loopback and store that
 * does one GetItem and one UpdateItem per request and nothing else. On
 * `/transaction` the write is instead one TransactWriteItems with a
 * ClientRequestToken, of a new item and the update: what the store charges for
 * the write of a `/usage` with a `usage_id` (a marker and the counter).
 */
export async function startBaselineServer(table: Table): Promise<{ url: string; close(): Promise<void> }> {
  for (let start = 0; start < items; start += 25) {
    const batch = Array.from({ length: 25 }, (_, offset) => ({ PutRequest: { Item: { ...baselineKey(start + offset), count: 0 } } }));
    await table.doc.send(new BatchWriteCommand({ RequestItems: { [table.name]: batch } }));
  }
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      try {
        const { i } = JSON.parse(Buffer.concat(chunks).toString()) as { i: number };
        const { Item } = await table.doc.send(new GetCommand({ TableName: table.name, Key: baselineKey(i) }));
        const update = {
          TableName: table.name,
          Key: baselineKey(i),
          UpdateExpression: 'SET #count = :next',
          ExpressionAttributeNames: { '#count': 'count' },
          ExpressionAttributeValues: { ':next': Number(Item?.count ?? 0) + 1 },
        };
        if (request.url === '/transaction') {
          const marker = { pk: baselineKey(i).pk, sk: `MARK#${randomUUID()}` };
          await table.doc.send(
            new TransactWriteCommand({
              TransactItems: [{ Put: { TableName: table.name, Item: marker, ConditionExpression: 'attribute_not_exists(pk)' } }, { Update: update }],
              ClientRequestToken: randomUUID(),
            }),
          );
        } else {
          await table.doc.send(new UpdateCommand(update));
        }
        response.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true}');
      } catch {
        response.writeHead(500).end();
      }
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', () => listening()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((closed) => server.close(closed));
    },
  };
}
