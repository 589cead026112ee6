import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as origins from 'aws-cdk-lib/aws-cloudfront-origins';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3deploy from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { dashboardCsp } from '../dashboard/csp';

export interface StaticSiteProps {
  /** The folder of built files to deploy. */
  files: string;
  /** The API's base URL, written into config.json at deploy time. */
  apiUrl: string;
  /** The origin the site may call (its CSP connect-src). */
  apiOrigin: string;
  /** Retention of the deployment function's log group. */
  logRetentionDays: number;
  /**
   * The group of CDK's deployment function, when another site made it already: one function
   * deploys every site of a stack, so a second group of its own would stay empty forever.
   */
  deploymentLogs?: logs.ILogGroup;
  /** The distribution's comment; the response headers policy's comment. */
  comment: string;
  headersComment: string;
  /** Names the site is also served at, with their certificate (ACM, us-east-1). */
  domain?: { names: string[]; certificate: acm.ICertificate };
  /** Serve `<folder>/index.html` for `<folder>/` below the root too (S3 origins have no index documents of their own). */
  folderIndexes?: boolean;
}

/**
 * A static web app the service deploys (the owners' dashboard, the customers' portal):
 * its files in a private bucket that only its distribution may read (origin access
 * control), served with strict security headers (no inline script, API calls to the
 * API only, never framed). The API address is not built in: config.json is written at
 * deploy time.
 */
export class StaticSite extends Construct {
  readonly bucket: s3.Bucket;
  readonly distribution: cloudfront.Distribution;
  readonly headers: cloudfront.ResponseHeadersPolicy;
  readonly url: string;
  /** `https://<first custom name or distribution domain>`: what browsers send as `Origin` from the site. */
  readonly origin: string;
  readonly deployment: s3deploy.BucketDeployment;
  readonly deploymentLogs: logs.ILogGroup;

  constructor(scope: Construct, id: string, props: StaticSiteProps) {
    super(scope, id);
    this.bucket = new s3.Bucket(this, 'Bucket', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
    });
    this.headers = new cloudfront.ResponseHeadersPolicy(this, 'Headers', {
      comment: props.headersComment,
      securityHeadersBehavior: {
        contentSecurityPolicy: { contentSecurityPolicy: dashboardCsp(props.apiOrigin), override: true },
        strictTransportSecurity: { accessControlMaxAge: Duration.days(365), includeSubdomains: true, override: true },
        frameOptions: { frameOption: cloudfront.HeadersFrameOption.DENY, override: true },
        contentTypeOptions: { override: true },
        referrerPolicy: { referrerPolicy: cloudfront.HeadersReferrerPolicy.NO_REFERRER, override: true },
      },
    });
    this.distribution = new cloudfront.Distribution(this, 'Distribution', {
      comment: `${props.comment} (${Stack.of(this).stackName})`,
      defaultRootObject: 'index.html',
      defaultBehavior: {
        origin: origins.S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: cloudfront.AllowedMethods.ALLOW_GET_HEAD,
        cachePolicy: cloudfront.CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: this.headers,
        functionAssociations: props.folderIndexes
          ? [{ eventType: cloudfront.FunctionEventType.VIEWER_REQUEST, function: new cloudfront.Function(this, 'FolderIndexes', { code: folderIndexes, runtime: cloudfront.FunctionRuntime.JS_2_0 }) }]
          : undefined,
      },
      httpVersion: cloudfront.HttpVersion.HTTP2_AND_3,
      ...(props.domain ? { domainNames: props.domain.names, certificate: props.domain.certificate, minimumProtocolVersion: cloudfront.SecurityPolicyProtocol.TLS_V1_2_2021 } : {}),
    });
    this.deploymentLogs =
      props.deploymentLogs ??
      // Without a group of its own, Lambda makes one for CDK's deployment function that never expires.
      new logs.LogGroup(this, 'DeploymentLogs', { retention: props.logRetentionDays as logs.RetentionDays, removalPolicy: RemovalPolicy.DESTROY });
    this.deployment = new s3deploy.BucketDeployment(this, 'Files', {
      destinationBucket: this.bucket,
      sources: [s3deploy.Source.asset(props.files), s3deploy.Source.jsonData('config.json', { apiUrl: props.apiUrl })],
      distribution: this.distribution,
      distributionPaths: ['/*'],
      memoryLimit: 256,
      logGroup: this.deploymentLogs,
    });
    this.origin = `https://${props.domain?.names[0] ?? this.distribution.distributionDomainName}`;
    this.url = `${this.origin}/`;
  }
}

/** A CloudFront Function (viewer request): `/activate/` is read as `/activate/index.html`, the root being the distribution's default object. */
const folderIndexes = cloudfront.FunctionCode.fromInline(
  "function handler(event) { var request = event.request; if (request.uri.length > 1 && request.uri.endsWith('/')) request.uri += 'index.html'; return request; }",
);
