import { defineConfig } from 'vitest/config';

// `npm run test:faults`: the long fault test of the engine pool (real processes and signals, a 40 s
// freeze; a few minutes). Its short form is in `npm test` (tests/integration/pool/pool-faults.test.ts).
export default defineConfig({
  test: {
    include: ['tests/faults/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 600_000,
    hookTimeout: 120_000,
  },
});
