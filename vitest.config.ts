import swc from 'unplugin-swc';
import { defineConfig } from 'vitest/config';

// SWC instead of esbuild: Nest's dependency injection needs emitted decorator metadata.
export default defineConfig({
  plugins: [swc.vite({ module: { type: 'es6' } })],
  test: {
    include: ['src/**/*.spec.ts', 'test/**/*.spec.ts'],
    env: { TZ: 'UTC', NODE_ENV: 'test' },
    // The response recorder feeds the after-suite body check (scripts/after-suite/documented-bodies.mjs).
    setupFiles: ['reflect-metadata', './test/helpers/response-recorder.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    fileParallelism: true,
    maxWorkers: 2,
  },
});
