import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { CfnElement, Stack } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { LicensingStack } from '../../lib/licensing-stack';
import type { LicensingService } from '../../lib/service';
import { readSettings, type Settings } from '../../lib/settings';

export interface Synthesized {
  app: App;
  stack: LicensingStack;
  service: LicensingService;
  settings: Settings;
  template: Template;
}

/**
 * Synthesizes the stack the way bin/app.ts does, from CDK context. Bundling is
 * slow: synthesize once per test file. `bundle: false` skips esbuild where a
 * test looks only at the template.
 */
export function synthesize(context: Record<string, unknown> = {}, options: { bundle?: boolean; outdir?: string } = {}): Synthesized {
  const app = new App({
    outdir: options.outdir,
    context: { ...context, ...(options.bundle === false ? { 'aws:cdk:bundling-stacks': [] } : {}) },
  });
  const settings = readSettings((key) => app.node.tryGetContext(key));
  const stack = new LicensingStack(app, `Licensing-${settings.stage}`, { settings });
  return { app, stack, service: stack.service, settings, template: Template.fromStack(stack) };
}

/** Logical ID of a construct's CloudFormation resource, as the template names it. */
export function logicalId(stack: Stack, construct: IConstruct | undefined): string {
  if (!construct) throw new Error('construct expected');
  return stack.getLogicalId((construct.node.defaultChild ?? construct) as CfnElement);
}

type Resources = Record<string, { Type: string; Properties: Record<string, unknown> }>;

/** Full path of every API Gateway resource, by logical ID, rebuilt from the PathPart/ParentId chain. */
export function resourcePaths(template: Template): Map<string, string> {
  const resources = template.findResources('AWS::ApiGateway::Resource') as Resources;
  const paths = new Map<string, string>();
  const pathOf = (id: string): string => {
    const known = paths.get(id);
    if (known !== undefined) return known;
    const properties = resources[id]!.Properties;
    const parent = properties.ParentId as { Ref?: string };
    const parentPath = parent.Ref && resources[parent.Ref] ? pathOf(parent.Ref) : '';
    const full = `${parentPath}/${properties.PathPart as string}`;
    paths.set(id, full);
    return full;
  };
  for (const id of Object.keys(resources)) pathOf(id);
  return paths;
}

export interface MethodView {
  path: string;
  httpMethod: string;
  properties: Record<string, unknown>;
}

export function methods(template: Template): MethodView[] {
  const paths = resourcePaths(template);
  const found = template.findResources('AWS::ApiGateway::Method') as Resources;
  return Object.values(found).map(({ Properties }) => ({
    path: paths.get((Properties.ResourceId as { Ref: string }).Ref) ?? '?',
    httpMethod: Properties.HttpMethod as string,
    properties: Properties,
  }));
}

/** Singleton functions CDK adds for its own constructs: the dashboard's BucketDeployment, LogRetention. */
const cdkProvidedFunction = /^(CustomCDKBucketDeployment|LogRetention[0-9a-f]{32})/;

/**
 * The template's resources of a type, without those of CDK's own singleton
 * functions and their roles: the service's own functions and policies.
 */
export function serviceResources(template: Template, type: 'AWS::Lambda::Function' | 'AWS::IAM::Policy'): ReturnType<Template['findResources']> {
  const all = template.findResources(type);
  return Object.fromEntries(Object.entries(all).filter(([id]) => !cdkProvidedFunction.test(id)));
}

/** Every statement of the policies attached to a role of the synthesized stack. */
export function statementsOfRole(synth: Synthesized, role: IConstruct | undefined) {
  const ref = JSON.stringify({ Ref: logicalId(synth.stack, role) });
  const policies = Object.values(synth.template.findResources('AWS::IAM::Policy')).filter((policy) =>
    (policy.Properties.Roles as unknown[]).some((attached) => JSON.stringify(attached) === ref),
  );
  return policies.flatMap((policy) => policy.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown; Condition?: unknown }[]);
}
