/** ESM jest over swc. Run through `npm test` (scripts/test.ts), which provides DynamoDB Local. */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'es6' } }],
  },
  moduleNameMapper: {
    '^#core/(.*)$': '<rootDir>/functions/core/$1',
    '^#data/(.*)$': '<rootDir>/functions/data/$1',
    '^#shared/(.*)$': '<rootDir>/functions/shared/$1',
    // Packages built by tsc for Node (clients/app-typescript) import their own modules by the names tsc emits, ending in .js.
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  // Checks over the whole run's records: scripts/test.ts runs them once every other file is done.
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/after-run/'],
  testTimeout: 30_000,
};
