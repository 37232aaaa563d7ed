// Jest runs TypeScript through @swc/jest as native ESM (node --experimental-vm-modules); tsc does the type checking.
export default {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: {
    '^sextant/strategy$': '<rootDir>/src/strategy/api.ts',
    '^sextant/testing$': '<rootDir>/src/strategy/testing.ts',
    '^#trading-signals$': 'trading-signals',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'es6' } }],
  },
  testTimeout: 30000,
  maxWorkers: 2,
};
