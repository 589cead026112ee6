import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '#core/logger';
import type { ServiceEvent } from '../../functions/events/derive';
import { localSink } from '../../functions/events/sinks';

let server: Server;
let url: string;
const received: unknown[] = [];
let status = 204;

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      received.push(JSON.parse(body));
      response.writeHead(status).end();
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
});
afterAll(() => new Promise<void>((closed) => server.close(() => closed())));

const event = (n: number): ServiceEvent => ({ id: `r-${n}-0`, type: 'blacklist.added', app_id: 'app-1', subject: 'ip:203.0.113.9', at: '2026-03-04T10:00:00.000Z', actor: 'admin' });

describe('the local webhook sink (EVENTS_WEBHOOK_URL)', () => {
  it('POSTs each event as JSON to the URL', async () => {
    received.length = 0;
    await localSink({ webhookUrl: url, logger: createLogger('silent') }).deliver([event(1), event(2)]);
    expect(received).toEqual([event(1), event(2)]);
  });

  it('logs a webhook that answers an error and goes on: it is a development tool, not a delivery guarantee', async () => {
    received.length = 0;
    status = 500;
    const lines: string[] = [];
    await localSink({ webhookUrl: url, logger: createLogger('warn', {}, (line) => lines.push(line)) }).deliver([event(3)]);
    expect(received).toEqual([event(3)]);
    expect(lines.map((line) => JSON.parse(line))).toMatchObject([{ level: 'warn', message: 'event webhook answered an error', status: 500, event_id: 'r-3-0' }]);
  });
});
