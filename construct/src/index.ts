/**
 * The construct package: the same LicensingService class bin/app.ts deploys, built
 * by scripts/pack-construct.ts with its Lambda code, dashboard and portal already bundled.
 */
export { LicensingService } from '../../lib/service';
export type { ClientHttpApi } from '../../lib/client-api';
export type { ClientApi, EndpointType, LicensingServiceProps, Settings } from '../../lib/settings';
export { SettingsError } from '../../lib/settings';
export type { FunctionName, Group } from '../../functions/routes';
