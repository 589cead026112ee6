// A webhook receiver that verifies each delivery with the official Standard Webhooks library.
// Usage: WEBHOOK_SECRET=whsec_... PORT=8080 node webhook-receiver.mjs
import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';

const webhook = new Webhook(process.env.WEBHOOK_SECRET);
const seen = new Set(); // webhook-id of events handled: a retry or redelivery sends the same id again

const server = createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    let event;
    try {
      // Verify the exact bytes received, before parsing: checks the signature and that the timestamp is recent.
      event = webhook.verify(Buffer.concat(chunks).toString('utf8'), request.headers);
    } catch {
      response.writeHead(400).end();
      return;
    }
    if (!seen.has(event.id)) {
      seen.add(event.id);
      process.stdout.write(`${JSON.stringify({ verified: true, id: event.id, type: event.type, subject: event.subject })}\n`);
    }
    // Answer 2xx quickly (within 15 seconds); do slow work after answering.
    response.writeHead(204).end();
  });
});
server.listen(Number(process.env.PORT ?? 8080), '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ listening: server.address().port })}\n`));
