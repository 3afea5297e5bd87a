import { defineConfig } from 'vitest/config';

// The e2e suite drives one headless Chromium against real Studio servers: one file at a time,
// with timeouts long enough for a build, a browser start and a few stand-in jobs.
export default defineConfig({
  test: {
    include: ['tests/e2e/**/*.e2e.ts'],
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
