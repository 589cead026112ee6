import type * as acm from 'aws-cdk-lib/aws-certificatemanager';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { portalFiles } from './code';
import { acknowledgeStaticSiteFindings } from './nag';
import { StaticSite } from './static-site';

export interface PortalSiteProps {
  /** The API's base URL, written into config.json at deploy time: the portal's routes and `/license-file` are under it. */
  apiUrl: string;
  /** The origin the portal may call (its CSP connect-src). */
  apiOrigin: string;
  logRetentionDays: number;
  /** The dashboard's deployment log group, when the dashboard is deployed: one function deploys both. */
  deploymentLogs?: logs.ILogGroup;
  /** The owner's own name for the portal, with its certificate (ACM, us-east-1). */
  domain?: { name: string; certificate: acm.ICertificate };
}

/**
 * The customers' portal (lib/static-site.ts): sign-in by emailed code, their licenses,
 * and the `/activate/` page the app libraries' activation links open.
 */
export class PortalSite extends StaticSite {
  constructor(scope: Construct, id: string, props: PortalSiteProps) {
    super(scope, id, {
      ...props,
      files: portalFiles(),
      comment: 'Licensing customer portal',
      headersComment: 'Customer portal: no inline script, API calls to the API only, never framed',
      domain: props.domain && { names: [props.domain.name], certificate: props.domain.certificate },
      folderIndexes: true,
    });
    acknowledgeStaticSiteFindings(this, {
      what: 'the built portal',
      viewers: 'Customers sign in from anywhere; the code emailed to them, not the viewer\'s country, decides access.',
    });
  }
}
