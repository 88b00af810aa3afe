// Lint with type information: floating promises, consistent type imports, no focused tests.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// The tables of memories, votes and provenance, as a query names them (`memories`, `memories as m`).
const MEMORY_TABLE = String.raw`/^(memories|memory_votes|memory_provenance|memory_postings|lexical_docs|lexical_df)( as [a-z_]+)?$/`;
// The same tables in SQL text or a qualified column (`from memories`, `memories.id`, `memory_votes v`).
const MEMORY_SQL = String.raw`/\b(memory_votes|memory_provenance|memory_postings|lexical_docs|lexical_df)\b|\b(from|join|update|into|table) memories\b|^memories[.]/i`;
// A library may not import a service. Repeated in every block that restricts a library's imports:
// a later block's no-restricted-imports replaces an earlier one for the same files.
const NO_SERVICE_IMPORT = {
  regex:
    '^@engram/(gateway|ingest-security|memory-store|retrieval-ranking|ace-feedback|security-admin|all-in-one|cli)(/|$)',
  message: 'a library may not import a service (docs/architecture.md)',
};
const MEMORY_SQL_MESSAGE =
  'SQL on memories, votes or provenance lives in @engram/memories (libs/memories); call it from storage/ (docs/architecture.md)';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'libs/proto/src/gen/**', 'data/**', 'eslint.config.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-restricted-properties': [
        'error',
        { object: 'describe', property: 'only', message: 'focused tests hide the rest of the suite' },
        { object: 'it', property: 'only', message: 'focused tests hide the rest of the suite' },
      ],
      'no-restricted-syntax': [
        'error',
        { selector: 'ExportAllDeclaration', message: 'export by name from index.ts (no export *)' },
      ],
    },
  },
  {
    // Plain JavaScript build tools (they run before anything is compiled): no type information.
    files: ['**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: { process: 'readonly', URL: 'readonly' },
    },
  },
  {
    // mocha loads its reporter with require(): CommonJS, no type information.
    files: ['**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      sourceType: 'commonjs',
      globals: { process: 'readonly', require: 'readonly', module: 'writable' },
    },
    rules: { ...tseslint.configs.disableTypeChecked.rules, '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // A library never imports a service: services compose libraries, not the other way round
    // (docs/architecture.md, Folders and what they may import). Library tests may, to check agreement.
    files: ['libs/*/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [NO_SERVICE_IMPORT],
        },
      ],
    },
  },
  {
    // grpc-kit is transport only (server, client, interceptors, health, reflection, status details,
    // idempotency protocol, service config): no database and no Redis. Authentication and rate
    // limiting live in @engram/access (docs/architecture.md, Folders and what they may import). The
    // libs-import-no-service pattern is repeated: a later block's rule replaces an earlier one.
    files: ['libs/grpc-kit/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            NO_SERVICE_IMPORT,
            {
              regex:
                '^(ioredis|knex|pg|@electric-sql/pglite|@engram/db|@engram/access|@engram/platform|@engram/runtime)(/|$)',
              message:
                'grpc-kit is transport only: no database, no Redis, no process lifetime; authentication and rate limits are in @engram/access, shutdown in @engram/runtime (docs/architecture.md)',
            },
          ],
        },
      ],
    },
  },
  {
    // libs/runtime is a process's lifetime (the one Runtime, runMain): it imports the logger and
    // nothing else of Engram's, so the gateway shares the services' shutdown without a database
    // driver in its import graph (docs/architecture.md, Folders and what they may import).
    files: ['libs/runtime/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            NO_SERVICE_IMPORT,
            {
              regex: '^@engram/(?!logger$)',
              message: 'libs/runtime imports only @engram/logger (docs/architecture.md)',
            },
          ],
        },
      ],
    },
  },
  {
    // The gateway holds nothing stored: it shares the services' Runtime, never their process
    // (libs/platform opens databases, relays and key lookups).
    files: ['services/gateway/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(@engram/platform|@engram/db|@engram/access|knex|pg|@electric-sql/pglite)(/|$)',
              message:
                'the gateway stores nothing: no service process, database or key lookup (docs/architecture.md)',
            },
          ],
        },
      ],
    },
  },
  {
    // libs/auth holds the access rules as pure functions of principals and memories: no database and
    // no Redis (the SQL form of visibility is in @engram/memories, key lookup in @engram/access).
    files: ['libs/auth/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            NO_SERVICE_IMPORT,
            {
              regex:
                '^(ioredis|knex|pg|@electric-sql/pglite|@engram/db|@engram/access|@engram/memories)(/|$)',
              message:
                'libs/auth decides, it does not read: SQL is in @engram/memories, key lookup in @engram/access (docs/architecture.md)',
            },
          ],
        },
      ],
    },
  },
  {
    // KeyAuthenticator and the limiters are free of the database: KnexKeyLookup (the KeyLookup port
    // on api_keys) is the one file of @engram/access that speaks SQL (docs/architecture.md).
    files: ['libs/access/src/**/*.ts'],
    ignores: ['libs/access/src/knex-key-lookup.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            NO_SERVICE_IMPORT,
            {
              regex: '^(knex|pg|@electric-sql/pglite|@engram/db)(/|$)',
              message: 'only knex-key-lookup.ts reads the database in @engram/access (docs/architecture.md)',
            },
          ],
        },
      ],
    },
  },
  {
    // Domain code holds the rules in the service's own types: protobuf, gRPC and SQL stay in
    // handlers, clients and storage (docs/architecture.md, Folders and what they may import). No
    // exceptions: the write vocabulary every domain shares lives in @engram/memory-model.
    files: ['services/*/src/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(@engram/proto|@grpc/grpc-js|knex|@engram/grpc-kit|@engram/db)(/|$)',
              message: 'domain code may not import protobuf, gRPC or the database (docs/architecture.md)',
            },
          ],
        },
      ],
    },
  },
  {
    // @engram/memories is the one place outside memory-store that reads memories, votes or provenance
    // (docs/architecture.md, Where each rule lives): a service names none of memory-store's tables
    // (memories, memory_provenance, memory_postings, lexical_docs, lexical_df) or ace-feedback's
    // memory_votes, neither as a table of a query nor in SQL text; it calls the library.
    files: ['services/*/src/**/*.ts'],
    ignores: ['services/memory-store/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: 'ExportAllDeclaration', message: 'export by name from index.ts (no export *)' },
        {
          // runGroup (the CLI's `engram memories` verbs) and writeEach (ingest-security's import
          // field) name a command and a request field, not a table.
          selector: `CallExpression:not([callee.name=/^(runGroup|writeEach)$/]) > Literal.arguments[value=${MEMORY_TABLE}]`,
          message: MEMORY_SQL_MESSAGE,
        },
        { selector: `Literal[value=${MEMORY_SQL}]`, message: MEMORY_SQL_MESSAGE },
        { selector: `TemplateElement[value.raw=${MEMORY_SQL}]`, message: MEMORY_SQL_MESSAGE },
      ],
    },
  },
  {
    // @engram/memory-model is the vocabulary every layer shares, down to domain code and the MCP
    // tools: pure, so it imports nothing (no database, gRPC, protos, services or Node built-ins) and
    // anything may import it (docs/architecture.md, Folders and what they may import).
    files: ['libs/memory-model/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '^[^.]', message: '@engram/memory-model is pure: relative imports only' }] },
      ],
      'no-restricted-globals': ['error', 'Buffer', 'process', 'require', '__dirname', '__filename', 'global'],
    },
  },
  {
    // @engram/client ships with no dependencies and runs wherever fetch does (Node 20, browsers,
    // Deno, Bun, edge workers): relative imports only, no Node built-ins or globals.
    files: ['libs/client/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '^[^.]', message: '@engram/client has no dependencies: relative imports only' },
          ],
        },
      ],
      'no-restricted-globals': ['error', 'Buffer', 'process', 'require', '__dirname', '__filename', 'global'],
    },
  },
  {
    files: ['**/test/**/*.ts', '**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
);
