import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { routes, sideOf } from '../../functions/routes';
import { functionNames } from '../../lib/functions';

/**
 * The construct package as an owner gets it: `npm run pack:construct`, the tarball
 * installed offline into a fresh TypeScript CDK app of its own, compiled strictly
 * and synthesized there with custom props, an alarm and a route of the owner's.
 */
const projectRoot = fileURLToPath(new URL('../..', import.meta.url));
const packageName = '@licensing-service/cdk';
const stage = 'owner-test';

const consumerApp = `
import { App, CfnOutput, Stack } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { LicensingService } from '${packageName}';

const app = new App();
const stack = new Stack(app, 'OwnerStack');
const licensing = new LicensingService(stack, 'Licensing', {
  stage: '${stage}',
  lambdaMemoryMb: 1024,
  logLevel: 'warn',
  managementRateLimit: 7,
  enableWaf: true,
  clientApi: 'http',
});
new CfnOutput(stack, 'LicensingClientApiUrl', { value: licensing.clientHttpApi!.url });
const ping = new lambda.Function(stack, 'Ping', {
  runtime: lambda.Runtime.NODEJS_22_X,
  handler: 'index.handler',
  code: lambda.Code.fromInline('exports.handler = async () => ({ statusCode: 200, body: "pong" });'),
});
licensing.api.root.addResource('ping').addMethod('GET', new apigateway.LambdaIntegration(ping));
new cloudwatch.Alarm(stack, 'ClientErrorsOverFive', {
  metric: licensing.functions.client.metricErrors(),
  threshold: 5,
  evaluationPeriods: 1,
}).addAlarmAction(licensing.alarmAction);
app.synth();
`;

type Resource = { Type: string; Properties: Record<string, any>; Metadata?: Record<string, string> };

let workDir: string;
let packageDir: string;
let outDir: string;
let resources: Record<string, Resource>;

const sameBytes = (a: string, b: string) => readFileSync(a).equals(readFileSync(b));
const ofType = (type: string) => Object.entries(resources).filter(([, resource]) => resource.Type === type);
const run = (command: string, args: string[], cwd: string, env: Record<string, string> = {}) =>
  execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });

// About a minute of CPU (ten bundles and the declarations packed, the app compiled and synthesized): the bound leaves room for a busy machine.
beforeAll(() => {
  workDir = mkdtempSync(join(tmpdir(), 'licensing-consumer-'));
  const tarball = run(process.execPath, ['--import', 'tsx', join(projectRoot, 'scripts', 'pack-construct.ts')], projectRoot).trim().split('\n').at(-1)!;

  const appDir = join(workDir, 'app');
  mkdirSync(appDir);
  writeFileSync(join(appDir, 'package.json'), JSON.stringify({ name: 'owner-app', private: true }));
  writeFileSync(
    join(appDir, 'tsconfig.json'),
    // As `cdk init` makes it: aws-cdk-lib's own declarations need skipLibCheck; the package's are checked below.
    JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'commonjs', strict: true, types: [], skipLibCheck: true, outDir: 'dist' }, files: ['app.ts'] }),
  );
  writeFileSync(join(appDir, 'app.ts'), consumerApp);
  // Nothing to fetch: the tarball has no dependencies, and peers are not installed with legacy-peer-deps.
  run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', '--legacy-peer-deps', tarball], appDir);
  // The peers the owner's app already has: this repository's copies, linked in after npm is done with node_modules.
  for (const peer of ['aws-cdk-lib', 'constructs']) symlinkSync(join(projectRoot, 'node_modules', peer), join(appDir, 'node_modules', peer), 'dir');
  packageDir = join(appDir, 'node_modules', ...packageName.split('/'));

  run(join(projectRoot, 'node_modules', '.bin', 'tsc'), ['-p', appDir], appDir);
  outDir = join(workDir, 'cdk.out');
  // What `cdk synth` passes an app: where to write, and to record each resource's path and asset.
  const cliContext = { 'aws:cdk:enable-path-metadata': true, 'aws:cdk:enable-asset-metadata': true };
  run(process.execPath, [join(appDir, 'dist', 'app.js')], appDir, { CDK_OUTDIR: outDir, CDK_CONTEXT_JSON: JSON.stringify(cliContext) });
  resources = JSON.parse(readFileSync(join(outDir, 'OwnerStack.template.json'), 'utf8')).Resources;
}, 240_000);

afterAll(() => {
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

describe('the construct package in an owner\'s CDK app', () => {
  it('installs with no dependency of its own, aws-cdk-lib and constructs as peers', () => {
    const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
    expect(manifest.dependencies).toBeUndefined();
    expect(Object.keys(manifest.peerDependencies).sort()).toEqual(['aws-cdk-lib', 'constructs']);
  });

  it('declares its types with nothing but the peers', () => {
    const declarations = readdirSync(join(packageDir, 'dist', 'types'), { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.d.ts'));
    expect(declarations).toContain(join('lib', 'service.d.ts'));
    for (const file of declarations) {
      const imports = [...readFileSync(join(packageDir, 'dist', 'types', file), 'utf8').matchAll(/(?:from |import\()['"]([^'"]+)['"]/g)].map(([, specifier]) => specifier!);
      expect(imports.filter((specifier) => !specifier.startsWith('.') && !/^(aws-cdk-lib|constructs)(\/|$)/.test(specifier))).toEqual([]);
    }
  });

  it('applies the custom props', () => {
    expect(ofType('AWS::ApiGateway::Stage').map(([, stageResource]) => stageResource.Properties.StageName)).toEqual([stage]);
    expect(ofType('AWS::ApiGateway::RestApi').map(([, api]) => api.Properties.Name)).toEqual([`licensing-${stage}`]);
    expect(ofType('AWS::ApiGateway::UsagePlan')[0]![1].Properties.Throttle).toMatchObject({ RateLimit: 7 });
    expect(ofType('AWS::WAFv2::WebACL')).toHaveLength(1);
    const service = ofType('AWS::Lambda::Function').filter(([, fn]) => fn.Metadata?.['aws:cdk:path']?.startsWith('OwnerStack/Licensing/Functions/'));
    expect(service).toHaveLength(functionNames.length);
    for (const [, fn] of service) {
      expect(fn.Properties).toMatchObject({ MemorySize: 1024, Handler: 'index.handler', Environment: { Variables: { LOG_LEVEL: 'warn' } } });
    }
  });

  it('takes the owner\'s alarm onto the service\'s alarm topic', () => {
    const [topicId] = ofType('AWS::SNS::Topic').map(([id]) => id);
    const alarm = Object.entries(resources).find(([id]) => id.startsWith('ClientErrorsOverFive'))![1];
    expect(alarm.Properties).toMatchObject({ Threshold: 5, AlarmActions: [{ Ref: topicId }] });
  });

  it('serves the owner\'s route from the service\'s API', () => {
    const [pingResourceId] = ofType('AWS::ApiGateway::Resource').find(([, resource]) => resource.Properties.PathPart === 'ping')!;
    const [pingFunctionId] = Object.keys(resources).filter((id) => id.startsWith('Ping') && resources[id]!.Type === 'AWS::Lambda::Function');
    const method = ofType('AWS::ApiGateway::Method').find(([, m]) => m.Properties.ResourceId.Ref === pingResourceId)![1];
    expect(method.Properties.HttpMethod).toBe('GET');
    expect(JSON.stringify(method.Properties.Integration.Uri)).toContain(pingFunctionId);
  });

  it('serves every client route from an HTTP API too, the client function invocable by it for those routes on its stage only', () => {
    const clientPaths = routes.filter((route) => sideOf(route.group) === 'client').map((route) => route.path);
    const routeKeys = ofType('AWS::ApiGatewayV2::Route').map(([, route]) => route.Properties.RouteKey as string);
    expect(routeKeys.sort()).toEqual(clientPaths.flatMap((path) => [`POST ${path}`, `OPTIONS ${path}`]).sort());
    expect(ofType('AWS::ApiGatewayV2::Stage').map(([, httpStage]) => httpStage.Properties.StageName)).toEqual([stage]);
    const [apiId] = ofType('AWS::ApiGatewayV2::Api').map(([id]) => id);
    const fromHttpApi = ofType('AWS::Lambda::Permission').filter(([, permission]) => JSON.stringify(permission.Properties.SourceArn).includes(`{"Ref":"${apiId}"}`));
    const tails = fromHttpApi.map(([, permission]) => (permission.Properties.SourceArn['Fn::Join'][1] as unknown[]).at(-1));
    expect(tails.sort()).toEqual(clientPaths.flatMap((path) => [`/${stage}/POST${path}`, `/${stage}/OPTIONS${path}`]).sort());
    const outputs = JSON.parse(readFileSync(join(outDir, 'OwnerStack.template.json'), 'utf8')).Outputs;
    expect(JSON.stringify(outputs.LicensingClientApiUrl.Value)).toContain(`{"Ref":"${apiId}"}`);
  });

  it('deploys the Lambda code, the dashboard and the portal bundled in the tarball, built by nobody at synth', () => {
    const service = ofType('AWS::Lambda::Function').filter(([, fn]) => fn.Metadata?.['aws:cdk:path']?.startsWith('OwnerStack/Licensing/Functions/'));
    const names = readdirSync(join(packageDir, 'dist', 'lambda')).sort();
    expect(names).toEqual([...functionNames].sort());
    for (const [, fn] of service) {
      const asset = join(outDir, fn.Metadata!['aws:asset:path']!);
      const name = names.find((candidate) => fn.Metadata!['aws:cdk:path']!.includes(`/${candidate.charAt(0).toUpperCase()}${candidate.slice(1)}Function/`))!;
      expect(readdirSync(asset).sort()).toEqual(readdirSync(join(packageDir, 'dist', 'lambda', name)).sort());
      expect(sameBytes(join(asset, 'index.mjs'), join(packageDir, 'dist', 'lambda', name, 'index.mjs'))).toBe(true);
    }
    const deployment = ofType('Custom::CDKBucketDeployment');
    expect(deployment).toHaveLength(2);
    const siteAssets = readdirSync(outDir, { withFileTypes: true }).filter(
      (entry) => entry.isDirectory() && entry.name.startsWith('asset.') && readdirSync(join(outDir, entry.name)).includes('app.js'),
    );
    const built = (site: string) => siteAssets.filter((asset) => sameBytes(join(outDir, asset.name, 'app.js'), join(packageDir, 'dist', site, 'app.js')));
    expect(built('dashboard')).toHaveLength(1);
    expect(built('portal')).toHaveLength(1);
  });
});
