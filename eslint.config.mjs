// ESLint 9 flat config (`npm run lint`, run by .ci/run before the tests): typescript-eslint's recommended rules
// on every TypeScript file, with the project's conventions below. The import direction between folders is
// checked by simulator/layout.test.ts (a test, so it also checks cycles and test-helper imports).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/**', 'reports/**', 'coverage/**', '.tools/**', 'test-results/**', '**/*.js'] },
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
    rules: {
      // Unused names are errors, except deliberate ones written with a leading underscore.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
      // Line length: the project's limit is 160 characters.
      'max-len': ['warn', { code: 160, ignoreUrls: true, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true, ignoreComments: false }],
    },
  },
  {
    // Tests and their fixtures read arbitrary JSON answers field by field: `any` is their vocabulary.
    files: ['**/*.test.ts', '**/testdata/**', 'simulator/testing/**', 'suites/harness/models/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
