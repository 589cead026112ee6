/**
 * How long a test may run that does `steps` steps one after another (a request,
 * a process start): jest's 30 s fits a handful of requests on an idle machine,
 * while a machine busy with other work (load average 4 to 20 on 2 cores) has
 * answered a request in a second or two, and started a process in tens of
 * seconds. The bound grows with the test's own work, so it still catches a
 * hang, never a slow machine.
 */
export function timeFor(steps: number, perStepMs = 2_000): number {
  return 30_000 + steps * perStepMs;
}
