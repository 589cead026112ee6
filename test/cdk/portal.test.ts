import { runInNewContext } from 'node:vm';
import { Match } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { groups } from '../../functions/routes';
import { SettingsError } from '../../lib/settings';
import { logicalId, synthesize, type Synthesized } from './stack-fixture';

const certificateArn = 'arn:aws:acm:us-east-1:123456789012:certificate/0f7a2c3e-1b4d-4e5f-8a9b-0c1d2e3f4a5b';

function portalResources(synth: Synthesized, type: string) {
  return Object.entries(synth.template.findResources(type)).filter(([id]) => id.startsWith('Portal'));
}

function nagFindings(synth: Synthesized): string[] {
  return new AwsSolutionsChecks().validateScope(synth.stack).violations.map((violation) => `${violation.ruleName}: ${violation.violatingResources.map((resource) => resource.constructPath).join(', ')}`);
}

describe('the customers\' portal site', () => {
  const synth = synthesize({}, { bundle: false });
  const distributionId = logicalId(synth.stack, synth.service.portal!.distribution);

  it('is a private bucket read by its own distribution through origin access control, with the dashboard\'s strict headers', () => {
    const [[, distribution]] = portalResources(synth, 'AWS::CloudFront::Distribution') as [[string, { Properties: { DistributionConfig: Record<string, unknown> } }]];
    expect(distribution.Properties.DistributionConfig).toMatchObject({
      DefaultRootObject: 'index.html',
      Origins: [expect.objectContaining({ OriginAccessControlId: expect.anything(), S3OriginConfig: { OriginAccessIdentity: '' } })],
      DefaultCacheBehavior: expect.objectContaining({ ViewerProtocolPolicy: 'redirect-to-https', AllowedMethods: ['GET', 'HEAD'] }),
    });
    expect(distribution.Properties.DistributionConfig.Aliases).toBeUndefined();
    const [[, bucket]] = portalResources(synth, 'AWS::S3::Bucket') as [[string, { Properties: Record<string, unknown> }]];
    expect(bucket.Properties.PublicAccessBlockConfiguration).toEqual({ BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true });
    const [[, policy]] = portalResources(synth, 'AWS::CloudFront::ResponseHeadersPolicy') as [[string, { Properties: { ResponseHeadersPolicyConfig: { SecurityHeadersConfig: Record<string, any> } } }]];
    const security = policy.Properties.ResponseHeadersPolicyConfig.SecurityHeadersConfig;
    const csp = JSON.stringify(security.ContentSecurityPolicy.ContentSecurityPolicy);
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain('execute-api');
    expect(security.FrameOptions).toEqual({ FrameOption: 'DENY', Override: true });
  });

  it('answers /activate/ with its index.html, through a CloudFront Function on viewer requests', () => {
    const [[functionId, fn]] = portalResources(synth, 'AWS::CloudFront::Function') as [[string, { Properties: { FunctionCode: string } }]];
    synth.template.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        DefaultCacheBehavior: Match.objectLike({ FunctionAssociations: [{ EventType: 'viewer-request', FunctionARN: { 'Fn::GetAtt': [functionId, 'FunctionARN'] } }] }),
      }),
    });
    // The function's own code, run as CloudFront runs it: the request in, the request to send on out.
    const rewrite = (uri: string) => runInNewContext(`${fn.Properties.FunctionCode}; handler({ request: { uri: ${JSON.stringify(uri)} } }).uri`);
    expect(rewrite('/activate/')).toBe('/activate/index.html');
    expect(rewrite('/')).toBe('/');
    expect(rewrite('/app.js')).toBe('/app.js');
  });

  it('deploys the built portal with config.json naming the API, sharing the dashboard\'s deployment log group', () => {
    const [[, deployment]] = portalResources(synth, 'Custom::CDKBucketDeployment') as [[string, { Properties: Record<string, unknown> }]];
    expect(deployment.Properties.DistributionPaths).toEqual(['/*']);
    const markers = JSON.stringify(deployment.Properties.SourceMarkers);
    expect(markers).toMatch(/"Ref":"Api[0-9A-F]{8}"/);
    expect(markers).toMatch(/"Ref":"ApiDeploymentStage/);
    expect(Object.keys(synth.template.findResources('AWS::Logs::LogGroup')).filter((id) => /DeploymentLogs/.test(id))).toEqual([expect.stringMatching(/^DashboardDeploymentLogs/)]);
  });

  it('tells every route function its URL as PORTAL_URL and outputs it', () => {
    const url = { 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distributionId, 'DomainName'] }, '/']] };
    for (const group of groups) {
      const fn = synth.template.findResources('AWS::Lambda::Function')[logicalId(synth.stack, synth.service.functions[group])]!;
      expect({ group, url: fn.Properties.Environment.Variables.PORTAL_URL }).toEqual({ group, url });
    }
    synth.template.hasOutput('PortalUrl', { Value: url });
    synth.template.hasOutput('PortalDistributionDomain', { Value: { 'Fn::GetAtt': [distributionId, 'DomainName'] } });
  });

  it('leaves no cdk-nag finding unacknowledged', () => {
    expect(nagFindings(synth)).toEqual([]);
  });
});

describe('the portal on the owner\'s own domain', () => {
  const synth = synthesize({ portalDomainName: 'Portal.Example.com', portalCertificateArn: certificateArn }, { bundle: false });

  it('serves the name with its certificate at TLS 1.2 or later, and uses it as the portal URL', () => {
    const [[, distribution]] = portalResources(synth, 'AWS::CloudFront::Distribution') as [[string, { Properties: { DistributionConfig: Record<string, unknown> } }]];
    expect(distribution.Properties.DistributionConfig).toMatchObject({
      Aliases: ['portal.example.com'],
      ViewerCertificate: { AcmCertificateArn: certificateArn, MinimumProtocolVersion: 'TLSv1.2_2021', SslSupportMethod: 'sni-only' },
    });
    synth.template.hasOutput('PortalUrl', { Value: 'https://portal.example.com/' });
    const fn = synth.template.findResources('AWS::Lambda::Function')[logicalId(synth.stack, synth.service.functions.client)]!;
    expect(fn.Properties.Environment.Variables.PORTAL_URL).toBe('https://portal.example.com/');
    expect(nagFindings(synth)).toEqual([]);
  });

  it('refuses a name without a certificate, a certificate outside us-east-1 and a name that is none', () => {
    expect(() => synthesize({ portalDomainName: 'portal.example.com' }, { bundle: false })).toThrow(
      new SettingsError('context portalDomainName and context portalCertificateArn go together: a custom domain is served with its certificate'),
    );
    expect(() => synthesize({ portalDomainName: 'portal.example.com', portalCertificateArn: certificateArn.replace('us-east-1', 'eu-west-1') }, { bundle: false })).toThrow(/portalCertificateArn must be the ARN of an ACM certificate in us-east-1/);
    expect(() => synthesize({ portalDomainName: 'https://portal.example.com', portalCertificateArn: certificateArn }, { bundle: false })).toThrow(/portalDomainName must be a domain name/);
    expect(() => synthesize({ portal: 'false', portalDomainName: 'portal.example.com', portalCertificateArn: certificateArn }, { bundle: false })).toThrow(/needs the portal/);
  });
});

describe('portal=false', () => {
  it('leaves the portal out, its output and PORTAL_URL with it', () => {
    const synth = synthesize({ portal: 'false' }, { bundle: false });
    expect(portalResources(synth, 'AWS::CloudFront::Distribution')).toEqual([]);
    expect(Object.keys(synth.template.findOutputs('PortalUrl'))).toEqual([]);
    const fn = synth.template.findResources('AWS::Lambda::Function')[logicalId(synth.stack, synth.service.functions.client)]!;
    expect(fn.Properties.Environment.Variables.PORTAL_URL).toBeUndefined();
  });
});
