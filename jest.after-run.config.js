import base from './jest.config.js';

/** The checks over what the whole suite recorded (test/support/evidence.ts): scripts/test.ts runs them after it. */
export default { ...base, testMatch: ['<rootDir>/test/after-run/**/*.test.ts'], testPathIgnorePatterns: [] };
