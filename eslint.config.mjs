// ESLint 9 flat config (`npm run lint`, run by .ci/run before the tests): typescript-eslint's recommended rules
// on every TypeScript file, with the project's conventions below. The import direction between folders is
// checked by simulator/layout.test.ts (a test, so it also checks cycles and test-helper imports).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import stylistic from '@stylistic/eslint-plugin';

export default tseslint.config(
  { ignores: ['node_modules/**', 'reports/**', 'coverage/**', '.tools/**', 'test-results/**', 'dist/**', '**/*.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.mjs'],
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: { process: 'readonly', Buffer: 'readonly', console: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', setImmediate: 'readonly', URL: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly', TextEncoder: 'readonly', TextDecoder: 'readonly', structuredClone: 'readonly', queueMicrotask: 'readonly', crypto: 'readonly', fetch: 'readonly', performance: 'readonly', NodeJS: 'readonly' },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    plugins: { '@stylistic': stylistic },
    rules: {
      // Unused names are errors, except deliberate ones written with a leading underscore.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
      // Formatting: the linter's stylistic rules are the project's formatter (`npm run lint -- --fix` applies
      // them). Line length: the project's limit is 160 characters.
      '@stylistic/indent': ['error', 2, { SwitchCase: 1, flatTernaryExpressions: true, offsetTernaryExpressions: true, ignoredNodes: ['TemplateLiteral *'] }],
      '@stylistic/quotes': ['error', 'single', { avoidEscape: true, allowTemplateLiterals: 'always' }],
      '@stylistic/semi': ['error', 'always'],
      '@stylistic/comma-dangle': ['error', 'always-multiline'],
      '@stylistic/no-trailing-spaces': 'error',
      '@stylistic/eol-last': 'error',
      '@stylistic/no-multiple-empty-lines': ['error', { max: 2, maxEOF: 0 }],
      '@stylistic/brace-style': ['error', '1tbs', { allowSingleLine: true }],
      '@stylistic/keyword-spacing': 'error',
      '@stylistic/space-infix-ops': 'error',
      '@stylistic/object-curly-spacing': ['error', 'always'],
      '@stylistic/arrow-parens': ['error', 'always'],
      '@stylistic/no-tabs': 'error',
      // assert.ok(x) / assert(x) without a message: when it fails, node 20 builds the message by parsing the .ts
      // file at the column of tsx's minified output; where that column lands, its findColumn recursed without
      // reading further and spun at 100% CPU (nodejs/node#52677, #52962): a failing assertion became a test
      // file hung for its whole 420 s timeout (volumes.test.ts in CI). With a message nothing is parsed.
      'no-restricted-syntax': [
        'error',
        ...["CallExpression[arguments.length<2][callee.object.name='assert'][callee.property.name='ok']", "CallExpression[arguments.length<2][callee.name='assert']"].map((selector) => ({
          selector,
          message: 'give assert.ok / assert a message: without one a failure can hang node 20 under tsx (see eslint.config.mjs)',
        })),
      ],
      '@stylistic/max-len': ['error', { code: 160, ignoreUrls: true, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true, ignoreComments: false }],
    },
  },
  {
    // Tests and their fixtures read arbitrary JSON answers field by field: `any` is their vocabulary.
    files: ['**/*.test.ts', '**/testdata/**', 'simulator/testing/**', 'suites/harness/models/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
