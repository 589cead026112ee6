import type { Construct } from 'constructs';
import { dashboardFiles } from './code';
import { acknowledgeStaticSiteFindings } from './nag';
import { StaticSite } from './static-site';

export interface DashboardSiteProps {
  /** The API's base URL, written into config.json at deploy time. */
  apiUrl: string;
  /** The origin the dashboard may call (its CSP connect-src). */
  apiOrigin: string;
  /** Retention of the deployment function's log group. */
  logRetentionDays: number;
}

/** The owners' dashboard (lib/static-site.ts). */
export class DashboardSite extends StaticSite {
  constructor(scope: Construct, id: string, props: DashboardSiteProps) {
    super(scope, id, {
      ...props,
      files: dashboardFiles(),
      comment: 'Licensing owner dashboard',
      headersComment: 'Owner dashboard: no inline script, API calls to the API only, never framed',
    });
    acknowledgeStaticSiteFindings(this, {
      what: 'the built dashboard',
      viewers: 'Owners sign in from anywhere; the API key, not the viewer\'s country, decides access.',
    });
  }
}
