import { routes, sideOf } from '../functions/routes';
import type { ClientApi } from '../lib/settings';
import { accessLogBytes, costPerMillion, platformLogBytes, renderCost, renderFrontDoors, type CostPerMillion } from './cost';
import { prices } from './prices';
import type { DeployedStack } from './deployed-stack';
import { median, round } from './stats';

/** One warm request the metering sent alone: its wall time, what was logged meanwhile, and its body's and its answer's sizes. */
export interface ServedSample {
  ms: number;
  log_bytes: number;
  status: number;
  request_bytes: number;
  response_bytes: number;
}

/** The budget of docs/performance.md#cost-per-million-requests: a warm /auth by license key at default settings. */
export const authCostBudgetUsd = 4.6;

/** The same through the HTTP API of clientApi=http (docs/deployment.md#two-front-doors-for-client-routes). */
export const authHttpCostBudgetUsd = 2.1;

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

/**
 * One operation priced from its warm samples (read and write units, median duration, mean bytes logged) and
 * the configuration of the function that serves it, through one front door of the synthesized stack.
 */
function priced(path: string, samples: ServedSample[], units: { read_units: number; write_units: number }, door: ClientApi, deployed: DeployedStack): CostPerMillion {
  const group = routes.find((route) => route.path === path)!.group;
  const fn = deployed.functions[group];
  const duration = median(samples.map((sample) => sample.ms));
  const accessLogFormat = door === 'http' ? deployed.httpAccessLogFormat : deployed.accessLogFormat;
  return costPerMillion({
    front_door: door,
    payload_bytes: Math.round(mean(samples.map((sample) => sample.request_bytes + sample.response_bytes))),
    read_units: units.read_units,
    write_units: units.write_units,
    duration_ms: round(duration),
    memory_mb: fn.memoryMb,
    architecture: fn.architecture,
    tracing: fn.tracing,
    // No stage decides for an HTTP API: a traced function would sample by Lambda's own rule.
    trace_sample_rate: door === 'http' ? prices.xray_default_sampled_fraction : deployed.traceSampleRate ?? prices.xray_default_sampled_fraction,
    handler_log_bytes: Math.round(mean(samples.map((sample) => sample.log_bytes))),
    access_log_bytes: Math.round(mean(samples.map((sample) => accessLogBytes(accessLogFormat, { path, status: sample.status, responseBytes: sample.response_bytes })))),
    platform_log_bytes: platformLogBytes({ memoryMb: fn.memoryMb, durationMs: duration, tracing: fn.tracing, systemLogLevel: fn.systemLogLevel }),
  });
}

/**
 * `cost_per_million` of bench/results.json: every metered operation priced through the REST API of the stack
 * synthesized at its default settings; `cost_per_million_http`: each client-route operation priced through
 * the HTTP API of the stack synthesized with clientApi=http, from the same samples.
 */
export function costSection(measured: {
  served: Record<string, ServedSample[]>;
  metered: Record<string, { warm: { read_units: number; write_units: number } }>;
  scenarios: Record<string, { path: string }>;
  deployed: DeployedStack;
  deployedHttp: DeployedStack;
}): { cost_per_million: Record<string, CostPerMillion>; cost_per_million_http: Record<string, CostPerMillion> } {
  const price = (door: ClientApi, deployed: DeployedStack, names: string[]) =>
    Object.fromEntries(names.map((name) => [name, priced(measured.scenarios[name]!.path, measured.served[name]!, measured.metered[name]!.warm, door, deployed)]));
  const names = Object.keys(measured.served);
  const clientNames = names.filter((name) => sideOf(routes.find((route) => route.path === measured.scenarios[name]!.path)!.group) === 'client');
  return { cost_per_million: price('rest', measured.deployed, names), cost_per_million_http: price('http', measured.deployedHttp, clientNames) };
}

type CostResults = { cost_per_million: Record<string, CostPerMillion>; cost_per_million_http: Record<string, CostPerMillion> };

export function costBudgets(results: CostResults) {
  const partsOf = (cost: CostPerMillion) =>
    Object.entries(cost.parts)
      .map(([name, usd]) => `${name.replace(/_usd$/, '')} ${usd}`)
      .join(', ');
  const auth = results.cost_per_million.auth_license!;
  const authHttp = results.cost_per_million_http.auth_license!;
  return [
    {
      budget: `/auth by key, warm: at most $${authCostBudgetUsd} per million at list prices and default settings (${partsOf(auth)})`,
      value: auth.total_usd,
      pass: auth.total_usd <= authCostBudgetUsd,
    },
    {
      budget: `/auth by key, warm, through the HTTP API (clientApi=http): at most $${authHttpCostBudgetUsd} per million at list prices (${partsOf(authHttp)})`,
      value: authHttp.total_usd,
      pass: authHttp.total_usd <= authHttpCostBudgetUsd,
    },
  ];
}

export function renderCostSection(results: CostResults, operationLabels: Record<string, string>): string[] {
  return [...renderCost(results.cost_per_million, operationLabels), '', ...renderFrontDoors(results.cost_per_million, results.cost_per_million_http, operationLabels), ''];
}
