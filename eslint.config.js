// The linter: the rules that catch real defects in this code base, type-aware (typescript-eslint reads the types tsc
// sees). Layout is Prettier's (.prettierrc.json), so no rule here is about style. `npm run lint` checks the tree and
// `npm test` runs the same check (test/unit/lint.test.ts). A rule switched off says why, beside it.
import tseslint from 'typescript-eslint';

/** Defects: a promise nobody awaits or catches, an await of what is not one, a value computed and dropped, a switch
 * that forgets a case, a throw of something not an Error, "[object Object]" in a message. */
const defects = {
  '@typescript-eslint/no-floating-promises': 'error',
  '@typescript-eslint/no-misused-promises': 'error',
  '@typescript-eslint/await-thenable': 'error',
  '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
  '@typescript-eslint/no-unused-expressions': 'error',
  // A `default:` is a stated decision ("any other kind: nothing to do"), so it counts as covering the rest; a switch
  // without one must name every member of the union it switches on.
  '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
  '@typescript-eslint/only-throw-error': 'error',
  '@typescript-eslint/no-base-to-string': 'error',
};

/** No `any`: written, or leaking from JSON.parse, an untyped Map or a library, into code that trusts its type. */
const noAny = {
  '@typescript-eslint/no-explicit-any': 'error',
  '@typescript-eslint/no-unsafe-assignment': 'error',
  '@typescript-eslint/no-unsafe-member-access': 'error',
  '@typescript-eslint/no-unsafe-return': 'error',
  '@typescript-eslint/no-unsafe-argument': 'error',
  '@typescript-eslint/no-unsafe-call': 'error',
};

export default tseslint.config(
  {
    // strategies/ and userdir/: a user folder kept in the checkout (the trader's files, outside tsc's program).
    ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'data/**', '**/vendor/**', 'test/fixtures/lint-bad/**', 'strategies/**', 'userdir/**'],
  },
  {
    files: ['**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { project: './tsconfig.json', tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: { ...defects, ...noAny },
  },
  {
    // Tests read the answers of a real server or a child process with JSON.parse and hold them to an expectation
    // (`expect(...).toEqual`): the assertion is the type check there, so `any` from JSON.parse is allowed in tests only.
    files: ['test/**/*.ts'],
    ignores: ['test/fixtures/lint-bad/**'],
    rules: Object.fromEntries(Object.keys(noAny).map((rule) => [rule, 'off'])),
  },
  {
    // Strategies' own tests run under Node's test runner, whose describe/it return promises the runner itself awaits.
    files: ['examples/**/*.test.ts', 'templates/**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite'] }] },
      ],
    },
  },
  {
    // The few plain JavaScript files (bin/, bench/, scripts/, child processes of tests): not in tsc's program, so the
    // rules that need types cannot run; these catch the defects that need none.
    files: ['**/*.{js,mjs,cjs}'],
    rules: { 'no-unused-vars': ['error', { argsIgnorePattern: '^_', caughtErrors: 'none' }], 'no-unused-expressions': 'error', 'no-unreachable': 'error' },
  },
);
