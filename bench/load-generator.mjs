// One bounded autocannon run in a process of its own, so the load generator
// shares neither an event loop nor a CPU queue position with the server under
// test, and nothing of the run outlives it. Reads its options as JSON from the
// file named in argv, writes autocannon's result as JSON to stdout.
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

const options = JSON.parse(readFileSync(process.argv[2], 'utf8'));
let next = 0;
const result = await autocannon({
  url: options.url,
  connections: options.connections,
  // `amount` would override `duration`; maxOverallRequests lets whichever bound comes first end the run.
  maxOverallRequests: options.amount,
  duration: options.maxSeconds,
  timeout: 30,
  headers: { 'content-type': 'application/json', ...options.headers },
  requests: [
    {
      method: 'POST',
      // Every request takes the next body of the list, so concurrent connections never send the same one at once.
      setupRequest: (request) => {
        const { path, body } = options.requests[next++ % options.requests.length];
        return { ...request, path, body };
      },
    },
  ],
});
process.stdout.write(JSON.stringify(result));
