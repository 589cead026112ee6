import { deployedStack } from '../../bench/deployed-stack';
import { functionNames } from '../../lib/functions';

describe("what the benchmark prices, read from the stack synthesized as bin/app.ts does", () => {
  it("gives the stage's trace sampling rate and, for every function, a system log level that drops Lambda's start and report lines", () => {
    const deployed = deployedStack();
    expect(deployed.traceSampleRate).toBe(0.001);
    expect(Object.keys(deployed.functions).sort()).toEqual([...functionNames].sort());
    for (const fn of Object.values(deployed.functions)) expect(fn).toMatchObject({ tracing: true, systemLogLevel: 'WARN', logLevel: 'info' });
    expect(deployed.accessLogFormat).toContain('$context.resourcePath');
    expect(deployed.httpAccessLogFormat).toBeUndefined();
  });

  it('with clientApi=http, gives the HTTP API stage\'s access-log line and an untraced client function, the others as by default', () => {
    const deployed = deployedStack({ clientApi: 'http' });
    expect(deployed.httpAccessLogFormat).toContain('$context.routeKey');
    expect(deployed.functions.client).toMatchObject({ tracing: false, systemLogLevel: 'WARN' });
    for (const [name, fn] of Object.entries(deployed.functions)) if (name !== 'client') expect(fn.tracing).toBe(true);
  });
});
