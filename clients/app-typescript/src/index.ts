export { LicenseClient, type CheckResult, type LicenseClientOptions, type OfflineResult, type OnlineResult, type WithDevice } from './client.js';
export { LicenseError, type ClientCode, type LicenseErrorCode, type ServiceCode } from './errors.js';
export { Heartbeat, type HeartbeatOptions } from './heartbeat.js';
export type { OfflineTokenClaims } from './offline-token.js';
export type { PublicJwk } from './signature.js';
export type { Credentials, LicenseData, UsageCounter } from './types.js';
