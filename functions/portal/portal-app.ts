import type { Deps } from '#core/deps';
import { ManagementError } from '#core/http/errors';
import * as apps from '#data/app.repo';
import type { App } from '#data/model/app';
import type { PortalSettings } from '#data/model/portal';

/** An application whose portal is on, with its portal's settings; anything else (unknown, inactive, off) is 403 PORTAL_DISABLED, one answer for all. */
export async function portalOf(deps: Deps, appId: string): Promise<{ app: App; portal: PortalSettings; secret: string }> {
  const app = await apps.get(deps.table, appId);
  if (!app || app.status !== 'active' || !app.portal?.enabled || app.portal_secret === undefined) throw new ManagementError('PORTAL_DISABLED');
  return { app, portal: app.portal, secret: app.portal_secret };
}

export interface PortalBranding {
  name: string;
  sender_name?: string;
  support_url?: string;
  allow_device_release: boolean;
  allow_license_files: boolean;
}

/** `POST /portal/app`: what the portal shows before anyone signs in, and nothing more. */
export async function portalApp(deps: Deps, input: { app_id: string }): Promise<PortalBranding> {
  const { app, portal } = await portalOf(deps, input.app_id);
  return {
    name: app.name,
    ...(portal.sender_name === undefined ? {} : { sender_name: portal.sender_name }),
    ...(portal.support_url === undefined ? {} : { support_url: portal.support_url }),
    allow_device_release: portal.allow_device_release,
    allow_license_files: portal.allow_license_files,
  };
}
