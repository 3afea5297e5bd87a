// Lint is part of `npm test`. Type-aware rules (no-floating-promises above all) catch the
// async mistakes that hurt a long-running server most.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** Server folders that hold a capability (ARCHITECTURE.md); shared infrastructure imports none. */
const CAPABILITY_LIST = ['engine', 'standin', 'workflows', 'jobs', 'batches', 'assets', 'catalog', 'downloads', 'presets', 'modelhub', 'modelhub-client', 'repohost', 'nodes', 'disk', 'llm', 'chatbot', 'system', 'gpu', 'setup', 'users', 'comfy-api', 'notifications'];
const CAPABILITIES = CAPABILITY_LIST.join('|');
/** Shared infrastructure that sits at the top of server/ beside the composition root. */
const INFRA_ROOT_FILES = ['server/config.ts', 'server/logging.ts', 'server/time.ts', 'server/fs-durable.ts', 'server/free-space.ts', 'server/media-types.ts', 'server/zip-writer.ts', 'server/zip-reader.ts', 'server/png-chunks.ts', 'server/versions.ts', 'server/redact.ts', 'server/domain-error.ts', 'server/start-failure.ts', 'server/infrastructure.ts'];

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'renderer/dist/', 'artifacts/', 'coverage/', '.cache/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
      globals: { ...globals.node },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false, attributes: false } }],
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-empty': ['error', { allowEmptyCatch: true }],
    },
  },
  {
    // The renderer's TypeScript (api, stores, composables, lib) is linted with the same type-aware
    // rules; the project service finds renderer/tsconfig.json for it. Its .vue files are checked
    // by vue-tsc (npm test), which keeps their logic thin.
    files: ['renderer/**/*.ts', 'tests/unit/renderer/**/*.ts'],
    languageOptions: { globals: { ...globals.browser } },
  },
  // The layers of ARCHITECTURE.md, enforced: each block names what a layer may not import. The
  // arrows between capabilities and the absence of cycles are checked by
  // tests/unit/architecture/import-graph.test.ts, which draws the graph from the code.
  {
    files: ['server/contracts/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ regex: '^\\.\\./', message: 'The wire contracts import only zod and each other (ARCHITECTURE.md, layers).' }] }] },
  },
  {
    files: ['server/http/**/*.ts', 'server/process/**/*.ts', 'server/db/**/*.ts', 'server/events/**/*.ts', 'server/config/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ regex: `^(\\.\\./)+(${CAPABILITIES})/|^(\\.\\./)+(studio|studio-http|main)\\.js$`, message: 'Shared infrastructure imports no capability and not the composition root (ARCHITECTURE.md, layers).' }] }] },
  },
  {
    files: INFRA_ROOT_FILES,
    rules: { 'no-restricted-imports': ['error', { patterns: [{ regex: `^\\./(${CAPABILITIES})/|^\\./(studio|studio-http|main)\\.js$`, message: 'Shared infrastructure imports no capability and not the composition root (ARCHITECTURE.md, layers).' }] }] },
  },
  {
    files: [`server/{${CAPABILITY_LIST.filter((c) => c !== 'standin').join(',')}}/**/*.ts`],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ regex: '^(\\.\\./)+(studio|studio-http|main)\\.js$', message: 'Capabilities get what they use from the composition root; they never import it (ARCHITECTURE.md).' }] }] },
  },
  {
    // The stand-in is a separate program: it shares only the engine's path and prompt rules, the containment rule, logging, config, the Host rule and the PNG chunk writer.
    files: ['server/standin/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ regex: '^\\.\\./(?!(engine/(engine-paths|view-file|extra-model-paths|prompt-rules/[a-z-]+)|logging|config|png-chunks|http/(host-guard|contained-path))\\.js$)', message: 'The stand-in imports only the shared engine rules listed in ARCHITECTURE.md.' }] }],
    },
  },
  {
    // Services raise domain errors (server/domain-error.ts) and one table in http/error-middleware.ts
    // gives their statuses; HttpError is the HTTP layer's own (validate(), sign-in, file answers).
    files: ['server/**/*.ts', 'main/**/*.ts'],
    ignores: ['server/http/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "ImportDeclaration[source.value=/http\\/errors\\.js$/] ImportSpecifier[imported.name='HttpError']",
          message: 'Throw a DomainError with a kind (server/domain-error.ts); only server/http/ uses HttpError.',
        },
      ],
    },
  },
  {
    files: ['renderer/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ regex: '/server/(?!contracts/)', message: 'The renderer imports only the wire contracts (server/contracts/) of the server.' }] }] },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    languageOptions: { globals: { ...globals.node } },
  },
  {
    // CommonJS files (the server bundle's entry, scripts/server-entry.cjs) load with require().
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The browser extension runs in Chromium (pages, a service worker), not in Node.
    files: ['resources/browser-extension/**/*.js'],
    languageOptions: { globals: { ...globals.browser, ...globals.serviceworker, ...globals.webextensions } },
  },
);
