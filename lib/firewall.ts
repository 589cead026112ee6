import type * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { routes, sideOf } from '../functions/routes';
import { rateLimitedBody } from './gateway-responses';
import type { Settings } from './settings';

/** The header the owner's CloudFront adds with `cloudFrontOriginSecret` as its value. */
export const cloudFrontOriginHeader = 'x-origin-verify';

const clientRoutes = routes.filter((route) => sideOf(route.group) === 'client').map((route) => route.path);

export interface FirewallProps {
  settings: Pick<Settings, 'stage' | 'enableWaf' | 'cloudFrontOriginSecret' | 'wafRateLimitPerIp' | 'wafClientRateLimitPerIp'>;
  stage: apigateway.Stage;
}

/**
 * A web ACL on the API stage: with `cloudFrontOriginSecret`, it refuses every
 * request that did not come through the owner's CloudFront; with `enableWaf`,
 * per-IP rate rules answer RATE_LIMITED in the service's own body.
 */
export class Firewall extends Construct {
  readonly webAcl: wafv2.CfnWebACL;

  /** Whether the settings call for a web ACL at all (it has a monthly fee). */
  static wanted(settings: Pick<Settings, 'enableWaf' | 'cloudFrontOriginSecret'>): boolean {
    return settings.enableWaf || settings.cloudFrontOriginSecret !== undefined;
  }

  constructor(scope: Construct, id: string, { settings, stage }: FirewallProps) {
    super(scope, id);
    const metric = (name: string) => ({ cloudWatchMetricsEnabled: true, metricName: name, sampledRequestsEnabled: true });
    const rateLimited = {
      block: {
        customResponse: {
          responseCode: 429,
          customResponseBodyKey: 'rateLimited',
          responseHeaders: [
            { name: 'Retry-After', value: '60' },
            { name: 'Access-Control-Allow-Origin', value: '*' },
          ],
        },
      },
    };
    const rules: wafv2.CfnWebACL.RuleProperty[] = [];
    if (settings.cloudFrontOriginSecret !== undefined) {
      // Only the owner's distribution adds this header: a request without it reached execute-api directly.
      rules.push({
        name: 'RequireCloudFrontOrigin',
        priority: rules.length,
        statement: {
          notStatement: {
            statement: {
              byteMatchStatement: {
                fieldToMatch: { singleHeader: { Name: cloudFrontOriginHeader } },
                positionalConstraint: 'EXACTLY',
                searchString: settings.cloudFrontOriginSecret,
                textTransformations: [{ priority: 0, type: 'NONE' }],
              },
            },
          },
        },
        action: { block: {} },
        visibilityConfig: metric(`licensing-${settings.stage}-bypassed-cloudfront`),
      });
    }
    if (settings.enableWaf) {
      rules.push({
        name: 'RateLimitPerIp',
        priority: rules.length,
        statement: { rateBasedStatement: { limit: settings.wafRateLimitPerIp, aggregateKeyType: 'IP' } },
        action: rateLimited,
        visibilityConfig: metric(`licensing-${settings.stage}-rate-per-ip`),
      });
      // WAF cannot count by a body field, so not by app_id: per IP, on the client routes only, is the closest it gets.
      const clientPath = (path: string) => ({
        byteMatchStatement: {
          fieldToMatch: { uriPath: {} },
          positionalConstraint: 'ENDS_WITH',
          searchString: path,
          textTransformations: [{ priority: 0, type: 'NORMALIZE_PATH' }],
        },
      });
      rules.push({
        name: 'RateLimitClientRoutesPerIp',
        priority: rules.length,
        statement: {
          rateBasedStatement: {
            limit: settings.wafClientRateLimitPerIp,
            aggregateKeyType: 'IP',
            scopeDownStatement: { orStatement: { statements: clientRoutes.map(clientPath) } },
          },
        },
        action: rateLimited,
        visibilityConfig: metric(`licensing-${settings.stage}-client-rate-per-ip`),
      });
    }
    this.webAcl = new wafv2.CfnWebACL(this, 'WebAcl', {
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      visibilityConfig: metric(`licensing-${settings.stage}`),
      customResponseBodies: { rateLimited: { contentType: 'APPLICATION_JSON', content: JSON.stringify(rateLimitedBody) } },
      rules,
    });
    new wafv2.CfnWebACLAssociation(this, 'WebAclAssociation', { resourceArn: stage.stageArn, webAclArn: this.webAcl.attrArn });
  }
}
