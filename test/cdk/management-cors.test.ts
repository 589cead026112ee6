import { routes, sideOf } from '../../functions/routes';
import { logicalId, methods, synthesize, type Synthesized } from './stack-fixture';

type Resources = Record<string, { Type: string; Properties?: Record<string, unknown>; DependsOn?: string | string[] }>;

const originHeader = 'method.response.header.Access-Control-Allow-Origin';

/** The preflights' origins by side; the customer portal's routes apart, as they allow every origin. */
function preflightOrigins(synth: Synthesized): { client: unknown[]; management: unknown[]; portal: unknown[] } {
  const found = { client: [] as unknown[], management: [] as unknown[], portal: [] as unknown[] };
  for (const method of methods(synth.template).filter((candidate) => candidate.httpMethod === 'OPTIONS')) {
    const route = routes.find((candidate) => candidate.path === method.path)!;
    const integration = method.properties.Integration as { IntegrationResponses: { ResponseParameters: Record<string, unknown> }[] };
    found[route.group === 'portal' ? 'portal' : sideOf(route.group)].push(integration.IntegrationResponses[0]!.ResponseParameters[originHeader]);
  }
  return found;
}

function environmentOf(synth: Synthesized, name: 'client' | 'license' | 'app'): Record<string, unknown> {
  const fn = synth.template.findResources('AWS::Lambda::Function')[logicalId(synth.stack, synth.service.functions[name])]!;
  return (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
}

/** Every Ref, Fn::GetAtt and DependsOn edge between resources; a cycle here is a stack CloudFormation refuses. */
function findCycle(resources: Resources): string[] | undefined {
  const edges = new Map<string, Set<string>>();
  const collect = (value: unknown, into: Set<string>) => {
    if (Array.isArray(value)) value.forEach((item) => collect(item, into));
    else if (value && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) {
        if (key === 'Ref' && typeof inner === 'string' && resources[inner]) into.add(inner);
        else if (key === 'Fn::GetAtt' && Array.isArray(inner) && resources[inner[0] as string]) into.add(inner[0] as string);
        else collect(inner, into);
      }
    }
  };
  for (const [id, resource] of Object.entries(resources)) {
    const targets = new Set<string>();
    collect(resource.Properties, targets);
    for (const dependency of [resource.DependsOn ?? []].flat()) targets.add(dependency);
    edges.set(id, targets);
  }
  const state = new Map<string, 'open' | 'done'>();
  const visit = (id: string, path: string[]): string[] | undefined => {
    if (state.get(id) === 'done') return undefined;
    if (state.get(id) === 'open') return [...path, id];
    state.set(id, 'open');
    for (const next of edges.get(id) ?? []) {
      const cycle = visit(next, [...path, id]);
      if (cycle) return cycle;
    }
    state.set(id, 'done');
    return undefined;
  };
  for (const id of edges.keys()) {
    const cycle = visit(id, []);
    if (cycle) return cycle;
  }
  return undefined;
}

describe('the management routes\' CORS origin', () => {
  it('is the dashboard\'s CloudFront origin by default, in the functions and the preflights, without a dependency cycle', () => {
    const synth = synthesize({}, { bundle: false });
    const distribution = logicalId(synth.stack, synth.service.dashboard!.distribution);
    const dashboardOrigin = { 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distribution, 'DomainName'] }]] };

    expect(environmentOf(synth, 'license').MANAGEMENT_CORS_ORIGIN).toEqual(dashboardOrigin);
    expect(environmentOf(synth, 'app').MANAGEMENT_CORS_ORIGIN).toEqual(dashboardOrigin);
    expect(environmentOf(synth, 'client').MANAGEMENT_CORS_ORIGIN).toBeUndefined();
    const origins = preflightOrigins(synth);
    expect(origins.management.length).toBeGreaterThan(0);
    for (const origin of origins.management) expect(origin).toEqual({ 'Fn::Join': ['', ["'https://", { 'Fn::GetAtt': [distribution, 'DomainName'] }, "'"]] });
    expect(new Set(origins.client)).toEqual(new Set(["'*'"]));
    // The customer portal's routes take a bearer token, never a cookie: every origin, whatever the dashboard's.
    expect(new Set(origins.portal)).toEqual(new Set(["'*'"]));
    expect(findCycle(synth.template.toJSON().Resources as Resources)).toBeUndefined();
  });

  it('is * when the dashboard is not deployed', () => {
    const synth = synthesize({ dashboard: false }, { bundle: false });

    expect(environmentOf(synth, 'license').MANAGEMENT_CORS_ORIGIN).toBe('*');
    const origins = preflightOrigins(synth);
    expect(new Set([...origins.management, ...origins.client])).toEqual(new Set(["'*'"]));
  });

  it('is the origin the setting names, client routes keeping *', () => {
    const synth = synthesize({ managementCorsOrigin: 'https://admin.example.com' }, { bundle: false });

    expect(environmentOf(synth, 'license').MANAGEMENT_CORS_ORIGIN).toBe('https://admin.example.com');
    const origins = preflightOrigins(synth);
    expect(new Set(origins.management)).toEqual(new Set(["'https://admin.example.com'"]));
    expect(new Set(origins.client)).toEqual(new Set(["'*'"]));
  });
});
