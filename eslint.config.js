// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * Drivers sit behind a small interface, and only the one factory of each concept picks
 * and imports them (docs/architecture.md). Tests may import a driver directly (the
 * conformance suites run against each one), so the rule covers `src/` only.
 */
const DRIVER_GROUPS = [
  {
    factory: 'packages/core/src/sql/create-sql-database.ts',
    // Not a scoped package's own path (`@electric-sql/pglite/nodefs`, which the PGlite driver uses).
    regex: '^(?!@)(.*/)?(pglite|postgres)/',
  },
  {
    factory: 'packages/core/src/storage/create-object-store.ts',
    regex: '(^|/)storage/(fs|s3)/|^(\\.{1,2}/)+(fs|s3)/',
  },
  {
    factory: 'packages/core/src/counters/create-counter-store.ts',
    regex: '(^|/)counters/(memory|redis)/|^(\\.{1,2}/)+(memory|redis)/[^/]*counter',
  },
  {
    factory: 'services/render/src/queue/create-task-queue.ts',
    regex: '(^|/)queue/(memory|bullmq)/|^(\\.{1,2}/)+(memory|bullmq)/[^/]*task-queue',
  },
  {
    factory: 'services/integration/src/broker/create-broker.ts',
    regex: '(^|/)(sql-log|jetstream)/',
  },
  {
    factory: 'services/analytics/src/agent/providers/create-llm-provider.ts',
    regex: '(^|/)providers/(anthropic|gemini|openai)(\\.js)?$',
  },
];

const SOURCES = ['packages/*/src/**/*.{ts,mjs,js}', 'services/*/src/**/*.{ts,mjs,js}'];

/** The no-restricted-imports rule with every driver group but those given. */
function driverImportRule(allowed = []) {
  const patterns = DRIVER_GROUPS.filter((g) => !allowed.includes(g)).map((g) => ({
    regex: g.regex,
    message: `a driver is imported only by its factory, ${g.factory}; use the factory or the interface beside it`,
  }));
  return { 'no-restricted-imports': ['error', { patterns }] };
}

const driverBoundaries = [
  { files: SOURCES, rules: driverImportRule() },
  // a factory may import its own drivers
  ...DRIVER_GROUPS.map((g) => ({
    files: [g.factory],
    rules: driverImportRule([g]),
  })),
];

/**
 * A route file registers routes and nothing else (CONTRIBUTING, Names): its only exports
 * are `register…Routes` functions and types. What other modules share (schemas, use
 * cases, helpers) lives in the capability's other modules.
 */
const routeFilesExportOnlyRegistrations = {
  files: ['services/*/src/**/*-routes.ts'],
  rules: {
    'no-restricted-syntax': [
      'error',
      {
        selector: 'ExportNamedDeclaration > VariableDeclaration',
        message:
          'a route file exports only its register…Routes function; move shared values to a module of the capability',
      },
      {
        selector:
          'ExportNamedDeclaration > FunctionDeclaration[id.name!=/^register[A-Za-z]*Routes$/]',
        message:
          'a route file exports only its register…Routes function; move shared functions to a module of the capability',
      },
      {
        selector: 'ExportNamedDeclaration > ClassDeclaration',
        message: 'a route file exports only its register…Routes function',
      },
      {
        selector: 'ExportNamedDeclaration[source]',
        message: 'a route file does not re-export other modules',
      },
    ],
  },
};

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      'data/**',
      '**/dist/**',
      '**/*.d.ts',
      'packages/client/src/generated/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        fetch: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        AbortSignal: 'readonly',
        AbortController: 'readonly',
        performance: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
    },
  },
  ...driverBoundaries,
  routeFilesExportOnlyRegistrations,
);
