import { routes } from '../functions/routes';
import { accessLogBytes, costPerMillion, platformLogBytes, renderCost, type CostPerMillion } from './cost';
import { prices } from './prices';
import type { DeployedStack } from './deployed-stack';
import { median, round } from './stats';

/** One warm request the metering sent alone: its wall time, what was logged meanwhile, and its answer's size. */
export interface ServedSample {
  ms: number;
  log_bytes: number;
  status: number;
  response_bytes: number;
}

/** The budget of docs/performance.md#cost-per-million-requests: a warm /auth by license key at default settings. */
export const authCostBudgetUsd = 4.6;

/**
 * `cost_per_million` of bench/results.json: every metered operation priced
 * from its warm samples (read and write units, median duration, mean bytes
 * logged) and the configuration of the function that serves it in the
 * synthesized stack.
 */
export function costSection(measured: {
  served: Record<string, ServedSample[]>;
  metered: Record<string, { warm: { read_units: number; write_units: number } }>;
  scenarios: Record<string, { path: string }>;
  deployed: DeployedStack;
}): { cost_per_million: Record<string, CostPerMillion> } {
  const costs = Object.entries(measured.served).map(([name, samples]) => {
    const path = measured.scenarios[name]!.path;
    const group = routes.find((route) => route.path === path)!.group;
    const fn = measured.deployed.functions[group];
    const duration = median(samples.map((sample) => sample.ms));
    const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
    return [
      name,
      costPerMillion({
        read_units: measured.metered[name]!.warm.read_units,
        write_units: measured.metered[name]!.warm.write_units,
        duration_ms: round(duration),
        memory_mb: fn.memoryMb,
        architecture: fn.architecture,
        tracing: fn.tracing,
        trace_sample_rate: measured.deployed.traceSampleRate ?? prices.xray_default_sampled_fraction,
        handler_log_bytes: Math.round(mean(samples.map((sample) => sample.log_bytes))),
        access_log_bytes: Math.round(
          mean(samples.map((sample) => accessLogBytes(measured.deployed.accessLogFormat, { path, status: sample.status, responseBytes: sample.response_bytes }))),
        ),
        platform_log_bytes: platformLogBytes({ memoryMb: fn.memoryMb, durationMs: duration, tracing: fn.tracing, systemLogLevel: fn.systemLogLevel }),
      }),
    ] as const;
  });
  return { cost_per_million: Object.fromEntries(costs) };
}

export function costBudgets(results: { cost_per_million: Record<string, CostPerMillion> }) {
  const auth = results.cost_per_million.auth_license!;
  const parts = Object.entries(auth.parts)
    .map(([name, usd]) => `${name.replace(/_usd$/, '')} ${usd}`)
    .join(', ');
  return [
    {
      budget: `/auth by key, warm: at most $${authCostBudgetUsd} per million at list prices and default settings (${parts})`,
      value: auth.total_usd,
      pass: auth.total_usd <= authCostBudgetUsd,
    },
  ];
}

export function renderCostSection(results: { cost_per_million: Record<string, CostPerMillion> }, operationLabels: Record<string, string>): string[] {
  return [...renderCost(results.cost_per_million, operationLabels), ''];
}
