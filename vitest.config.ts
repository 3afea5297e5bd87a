import { defineConfig } from 'vitest/config';

// Integration tests start real servers and child processes; on a 2-core box a few forks at a
// time keeps them from starving each other's timers.
export default defineConfig({
  test: {
    include: ['tests/unit/**/*.test.ts', 'tests/integration/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 3,
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
