import { deployedStack } from '../../bench/deployed-stack';
import { functionNames } from '../../lib/functions';

describe("what the benchmark prices, read from the stack synthesized at its default settings", () => {
  it("gives the stage's trace sampling rate and, for every function, a system log level that drops Lambda's start and report lines", () => {
    const deployed = deployedStack();
    expect(deployed.traceSampleRate).toBe(0.001);
    expect(Object.keys(deployed.functions).sort()).toEqual([...functionNames].sort());
    for (const fn of Object.values(deployed.functions)) expect(fn).toMatchObject({ tracing: true, systemLogLevel: 'WARN', logLevel: 'info' });
  });
});
