import { Match } from 'aws-cdk-lib/assertions';
import { synthesize } from './stack-fixture';

describe('the dashboard site', () => {
  const { template } = synthesize({}, { bundle: false });

  it('keeps the bucket private: every public access blocked, TLS only', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
    });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
      },
    });
  });

  it('lets only its CloudFront distribution read the bucket, through origin access control', () => {
    // One each for the dashboard and the customers' portal (test/cdk/portal.test.ts).
    template.resourceCountIs('AWS::CloudFront::OriginAccessControl', 2);
    template.hasResourceProperties('AWS::CloudFront::OriginAccessControl', {
      OriginAccessControlConfig: Match.objectLike({ OriginAccessControlOriginType: 's3', SigningBehavior: 'always', SigningProtocol: 'sigv4' }),
    });
    template.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        DefaultRootObject: 'index.html',
        Origins: [Match.objectLike({ OriginAccessControlId: Match.anyValue(), S3OriginConfig: { OriginAccessIdentity: '' } })],
        DefaultCacheBehavior: Match.objectLike({ ViewerProtocolPolicy: 'redirect-to-https', ResponseHeadersPolicyId: Match.anyValue() }),
      }),
    });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Allow', Principal: { Service: 'cloudfront.amazonaws.com' }, Action: 's3:GetObject', Condition: { StringEquals: { 'AWS:SourceArn': Match.anyValue() } } }),
        ]),
      },
    });
  });

  it('sends a CSP without inline scripts, HSTS and no framing with every file', () => {
    const policies = template.findResources('AWS::CloudFront::ResponseHeadersPolicy');
    const dashboard = Object.entries(policies).filter(([id]) => id.startsWith('DashboardHeaders'));
    expect(dashboard).toHaveLength(1);
    const security = dashboard[0]![1].Properties.ResponseHeadersPolicyConfig.SecurityHeadersConfig;
    const csp = JSON.stringify(security.ContentSecurityPolicy.ContentSecurityPolicy);

    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain('execute-api');
    expect(security.StrictTransportSecurity).toMatchObject({ AccessControlMaxAgeSec: 31536000, IncludeSubdomains: true, Override: true });
    expect(security.FrameOptions).toEqual({ FrameOption: 'DENY', Override: true });
  });

  it('writes config.json with the API address at deploy time and outputs the dashboard URL', () => {
    template.hasResourceProperties('Custom::CDKBucketDeployment', { DistributionPaths: ['/*'] });
    const deployment = Object.entries(template.findResources('Custom::CDKBucketDeployment')).find(([id]) => id.startsWith('DashboardFiles'))![1];
    // config.json's markers resolve at deploy time to the API's id and stage: the URL is not known at synth.
    const markers = JSON.stringify(deployment.Properties.SourceMarkers);
    expect(markers).toMatch(/"Ref":"Api[0-9A-F]{8}"/);
    expect(markers).toMatch(/"Ref":"ApiDeploymentStage/);
    template.hasOutput('DashboardUrl', { Value: { 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [Match.stringLikeRegexp('^DashboardDistribution'), 'DomainName'] }, '/']] } });
  });

  it('is left out with dashboard=false', () => {
    const without = synthesize({ dashboard: 'false', portal: 'false' }, { bundle: false }).template;
    without.resourceCountIs('AWS::CloudFront::Distribution', 0);
    without.resourceCountIs('AWS::S3::Bucket', 0);
    expect(Object.keys(without.findOutputs('DashboardUrl'))).toEqual([]);
  });
});
