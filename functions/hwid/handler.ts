import { lambdaDepsFromEnv } from '#core/deps';
import { createGroupHandler, managementEndpoint, type DepsSource, type Endpoints } from '#core/http';
import { editHwid } from './edit';
import {
  editHwidSchema,
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
};

export const createHandler = (deps: DepsSource) => createGroupHandler('hwid', endpoints, deps);

export const handler = createHandler(lambdaDepsFromEnv);
