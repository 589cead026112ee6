import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BatchWriteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Table } from '#data/db';

const items = 1000;
const baselineKey = (i: number) => ({ pk: `BENCH#${i}`, sk: 'BENCH' });

export const baselineRequests = Array.from({ length: items }, (_, i) => ({ path: '/', body: JSON.stringify({ i }) }));

/**
 * The floor under any /auth: an HTTP server on the same loopback and store that
 * does one GetItem and one UpdateItem per request and nothing else.
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
        await table.doc.send(
          new UpdateCommand({
            TableName: table.name,
            Key: baselineKey(i),
            UpdateExpression: 'SET #count = :next',
            ExpressionAttributeNames: { '#count': 'count' },
            ExpressionAttributeValues: { ':next': Number(Item?.count ?? 0) + 1 },
          }),
        );
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
