import { LicenseError } from '../../clients/app-typescript/src/index';

/** The LicenseError a call of the app client (clients/app-typescript) fails with; a success, or another error, fails the test. */
export const failure = (promise: Promise<unknown>): Promise<LicenseError> =>
  promise.then(
    () => {
      throw new Error('expected a LicenseError');
    },
    (error: unknown) => {
      expect(error).toBeInstanceOf(LicenseError);
      return error as LicenseError;
    },
  );
