// Run by a fresh `node` per sample: imports one Lambda bundle and answers one
// event that reaches the store, printing the milliseconds from the start of
// the import to the answer, and the answer's status for the caller to check.
const [file, eventJson] = process.argv.slice(2);
const started = performance.now();
const cpuStart = process.cpuUsage();
const { handler } = await import(file);
const answer = await handler(JSON.parse(eventJson), { getRemainingTimeInMillis: () => 3000, awsRequestId: 'probe' });
const elapsed = performance.now() - started;
const cpu = process.cpuUsage(cpuStart);
process.stdout.write(JSON.stringify({ ms: elapsed, cpu_ms: (cpu.user + cpu.system) / 1000, status: answer.statusCode ?? answer.policyDocument?.Statement?.[0]?.Effect }));
