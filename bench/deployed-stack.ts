import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, type CfnElement } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { FunctionName } from '../functions/routes';
import { LicensingStack } from '../lib/licensing-stack';
import { readSettings } from '../lib/settings';

/** What the benchmark takes from a function as the stack deploys it. */
export interface DeployedFunction {
  /** `NODE_OPTIONS` of its environment, when the stack sets it: the bundles are timed under exactly this. */
  nodeOptions: string | undefined;
  memoryMb: number;
  architecture: string;
  /** X-Ray active tracing. */
  tracing: boolean;
  logLevel: string;
  /** Lambda's system log level (INFO when the template sets none): at WARN its start and report lines are not ingested. */
  systemLogLevel: string;
}

export interface DeployedStack {
  functions: Record<FunctionName, DeployedFunction>;
  /** The stage's access-log line, `$context` variables unresolved: one is written per request. */
  accessLogFormat: string | undefined;
  /** The same of the HTTP API's stage, when the stack has one (clientApi=http). */
  httpAccessLogFormat: string | undefined;
  /** The fixed rate of the stack's X-Ray sampling rule for the stage, when it makes one. */
  traceSampleRate: number | undefined;
}

/**
 * Synthesizes this repository's stack as bin/app.ts does with this CDK context
 * (none: the default settings; esbuild skipped, only the template is read) and
 * returns each function's configuration, the stages' access-log formats and the
 * REST stage's X-Ray sampling rate from the template, so the benchmark measures
 * and prices what is deployed rather than a copy of it kept here.
 */
export function deployedStack(context: Record<string, string> = {}): DeployedStack {
  const outdir = mkdtempSync(join(tmpdir(), 'licensing-bench-synth-'));
  try {
    const app = new App({ outdir, context: { ...context, 'aws:cdk:bundling-stacks': [] } });
    const settings = readSettings((key) => app.node.tryGetContext(key));
    const stack = new LicensingStack(app, `Licensing-${settings.stage}`, { settings });
    const template = Template.fromStack(stack);
    const resources = template.findResources('AWS::Lambda::Function');
    const [stage] = Object.values(template.findResources('AWS::ApiGateway::Stage')) as { Properties: { AccessLogSetting?: { Format?: string } } }[];
    const [httpStage] = Object.values(template.findResources('AWS::ApiGatewayV2::Stage')) as { Properties: { AccessLogSettings?: { Format?: string } } }[];
    const functions = Object.fromEntries(
      Object.entries(stack.service.functions).map(([name, fn]) => {
        const properties = resources[stack.getLogicalId(fn.node.defaultChild as CfnElement)]!.Properties as {
          MemorySize: number;
          Architectures: string[];
          TracingConfig?: { Mode: string };
          LoggingConfig?: { SystemLogLevel?: string };
          Environment: { Variables: Record<string, unknown> };
        };
        const variables = properties.Environment.Variables;
        return [
          name,
          {
            nodeOptions: variables.NODE_OPTIONS === undefined ? undefined : String(variables.NODE_OPTIONS),
            memoryMb: properties.MemorySize,
            architecture: properties.Architectures[0]!,
            tracing: properties.TracingConfig?.Mode === 'Active',
            logLevel: String(variables.LOG_LEVEL),
            systemLogLevel: properties.LoggingConfig?.SystemLogLevel ?? 'INFO',
          },
        ];
      }),
    ) as Record<FunctionName, DeployedFunction>;
    const rules = Object.values(template.findResources('AWS::XRay::SamplingRule')) as { Properties: { SamplingRule: { ServiceType: string; FixedRate: number } } }[];
    const stageRule = rules.find((rule) => rule.Properties.SamplingRule.ServiceType === 'AWS::ApiGateway::Stage');
    return {
      functions,
      accessLogFormat: stage?.Properties.AccessLogSetting?.Format,
      httpAccessLogFormat: httpStage?.Properties.AccessLogSettings?.Format,
      traceSampleRate: stageRule?.Properties.SamplingRule.FixedRate,
    };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}
