import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as origins from 'aws-cdk-lib/aws-cloudfront-origins';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3deploy from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { dashboardCsp } from '../dashboard/csp';
import { dashboardFiles } from './code';
import { acknowledgeDashboardFindings } from './nag';

export interface DashboardSiteProps {
  /** The API's base URL, written into config.json at deploy time. */
  apiUrl: string;
  /** The origin the dashboard may call (its CSP connect-src). */
  apiOrigin: string;
  /** Retention of the deployment function's log group. */
  logRetentionDays: number;
}

/**
 * The owners' dashboard: static files in a private bucket that only this
 * distribution may read (origin access control), served with strict security
 * headers. The API address is not built in: config.json is written at deploy time.
 */
export class DashboardSite extends Construct {
  readonly bucket: s3.Bucket;
  readonly distribution: cloudfront.Distribution;
  readonly headers: cloudfront.ResponseHeadersPolicy;
  readonly url: string;
  /** `https://<distribution domain>`: what browsers send as `Origin` from the dashboard. */
  readonly origin: string;
  readonly deployment: s3deploy.BucketDeployment;

  constructor(scope: Construct, id: string, props: DashboardSiteProps) {
    super(scope, id);
    this.bucket = new s3.Bucket(this, 'Bucket', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
    });
    this.headers = new cloudfront.ResponseHeadersPolicy(this, 'Headers', {
      comment: 'Owner dashboard: no inline script, API calls to the API only, never framed',
      securityHeadersBehavior: {
        contentSecurityPolicy: { contentSecurityPolicy: dashboardCsp(props.apiOrigin), override: true },
        strictTransportSecurity: { accessControlMaxAge: Duration.days(365), includeSubdomains: true, override: true },
        frameOptions: { frameOption: cloudfront.HeadersFrameOption.DENY, override: true },
        contentTypeOptions: { override: true },
        referrerPolicy: { referrerPolicy: cloudfront.HeadersReferrerPolicy.NO_REFERRER, override: true },
      },
    });
    this.distribution = new cloudfront.Distribution(this, 'Distribution', {
      comment: `Licensing owner dashboard (${Stack.of(this).stackName})`,
      defaultRootObject: 'index.html',
      defaultBehavior: {
        origin: origins.S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: cloudfront.AllowedMethods.ALLOW_GET_HEAD,
        cachePolicy: cloudfront.CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: this.headers,
      },
      httpVersion: cloudfront.HttpVersion.HTTP2_AND_3,
    });
    this.deployment = new s3deploy.BucketDeployment(this, 'Files', {
      destinationBucket: this.bucket,
      sources: [s3deploy.Source.asset(dashboardFiles()), s3deploy.Source.jsonData('config.json', { apiUrl: props.apiUrl })],
      distribution: this.distribution,
      distributionPaths: ['/*'],
      memoryLimit: 256,
      // Without a group of its own, Lambda makes one for CDK's deployment function that never expires.
      logGroup: new logs.LogGroup(this, 'DeploymentLogs', {
        retention: props.logRetentionDays as logs.RetentionDays,
        removalPolicy: RemovalPolicy.DESTROY,
      }),
    });
    this.origin = `https://${this.distribution.distributionDomainName}`;
    this.url = `${this.origin}/`;
    acknowledgeDashboardFindings(this);
  }
}
