import { lambdaDepsFromEnv } from '#core/deps';
import { createGroupHandler, type DepsSource, type Endpoints } from '#core/http';
import { validate } from '#core/validation';
import { authenticate } from './auth';
import { countsAsAuthFailure } from './failure-count';
import { blacklistProbes } from './auth-checks';
import { registerCredentials, registeredMessage } from './register';
import { resetHwid } from './reset-hwid';
import { authSchema, registerSchema, resetHwidSchema } from './schemas';

export const endpoints: Endpoints<'client'> = {
  '/auth': async (deps, body, request) => {
    const input = validate('client', authSchema, body);
    try {
      const { message, data } = await authenticate(deps, input, blacklistProbes(request, input.hwid, deps.config.trustedViewerHeaders));
      return { body: { success: true, message, data } };
    } catch (error) {
      if (countsAsAuthFailure(error)) deps.authFailures.note(input.appId);
      throw error;
    }
  },
  '/reset-hwid': async (deps, body, request) => {
    const input = validate('client', resetHwidSchema, body);
    const { message, data } = await resetHwid(deps, input, blacklistProbes(request, input.hwid, deps.config.trustedViewerHeaders));
    return { body: { success: true, message, data } };
  },
  '/register': async (deps, body) => {
    await registerCredentials(deps, validate('client', registerSchema, body));
    return { body: { success: true, message: registeredMessage } };
  },
};

export const createHandler = (deps: DepsSource) => createGroupHandler('client', endpoints, deps);

export const handler = createHandler(lambdaDepsFromEnv);
