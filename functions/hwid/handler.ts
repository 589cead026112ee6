import { lambdaDepsFromEnv } from '#core/deps';
import { createGroupHandler, managementEndpoint, type DepsSource, type Endpoints } from '#core/http/handler';
import { editHwid } from './edit';
import { removeHwid } from './remove';
import { setLease } from './set-lease';
import { setMaxDevices } from './set-max-devices';
import {
  editHwidSchema,
  removeHwidSchema,
  setLeaseSchema,
  setMaxDevicesSchema,
  toggleLockBulkSchema,
  toggleLockSchema,
  toggleResetAllowedSchema,
  updateResetIntervalSchema,
} from './schemas';
import { toggleLock } from './toggle-lock';
import { toggleLockBulk } from './toggle-lock-bulk';
import { toggleResetAllowed } from './toggle-reset-allowed';
import { updateResetInterval } from './update-reset-interval';

export const endpoints: Endpoints<'hwid'> = {
  '/hwid/edit': managementEndpoint(editHwidSchema, editHwid),
  '/hwid/toggle-lock': managementEndpoint(toggleLockSchema, toggleLock),
  '/hwid/toggle-lock-bulk': managementEndpoint(toggleLockBulkSchema, toggleLockBulk),
  '/hwid/toggle-reset-allowed': managementEndpoint(toggleResetAllowedSchema, toggleResetAllowed),
  '/hwid/update-reset-interval': managementEndpoint(updateResetIntervalSchema, updateResetInterval),
  '/hwid/set-max-devices': managementEndpoint(setMaxDevicesSchema, setMaxDevices),
  '/hwid/remove': managementEndpoint(removeHwidSchema, removeHwid),
  '/hwid/set-lease': managementEndpoint(setLeaseSchema, setLease),
};

export const createHandler = (deps: DepsSource) => createGroupHandler('hwid', endpoints, deps);

export const handler = createHandler(lambdaDepsFromEnv);
