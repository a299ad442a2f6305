import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Tests start real HTTP servers and processes; two cores are shared between them.
    pool: 'forks',
    maxWorkers: 2,
    // In CI a JSON report too, from which .ci/run prints a plain 'N passed, N failed' closing line.
    reporters: process.env['CI']
      ? ['default', ['json', { outputFile: 'test-artifacts/vitest.json' }]]
      : ['default'],
  },
});
