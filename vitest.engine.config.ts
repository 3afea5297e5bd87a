import { defineConfig } from 'vitest/config';

// `npm run test:engine`: the suite against a real engine (ENGINE_DIR + ENGINE_PYTHON, or
// ENGINE_PORT of one already running). Not part of `npm test`; without an engine it says why it skips.
export default defineConfig({
  test: {
    include: ['tests/engine/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
