export {
  LicenseClient,
  type ActivationRequest,
  type CheckResult,
  type LicenseClientOptions,
  type LicenseFileOfflineResult,
  type LicenseFileOptions,
  type LicenseFileResult,
  type OfflineResult,
  type OnlineResult,
  type WithDevice,
} from './client.js';
export { LicenseError, type ClientCode, type LicenseErrorCode, type ServiceCode } from './errors.js';
export { Heartbeat, type HeartbeatOptions } from './heartbeat.js';
export type { FileDevice, LicenseFileClaims } from './license-file.js';
export type { OfflineTokenClaims } from './offline-token.js';
export type { PublicJwk } from './signature.js';
export type { Credentials, LicenseData, LicenseFileData, TrialData, UsageCounter } from './types.js';
