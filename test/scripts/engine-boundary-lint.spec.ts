import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const scratch = mkdtempSync(join(tmpdir(), 'fetcher-lint-engine-'));

/** Lints `source` as if it were `src/<path>`, with the project's own configuration, outside the tree. */
function lintAsSourceFile(path: string, source: string): string[] {
  const dir = mkdtempSync(join(scratch, 'case-'));
  copyFileSync(join(root, '.oxlintrc.json'), join(dir, '.oxlintrc.json'));
  // The configuration loads the house plugin from beside it: without it oxlint would stop before linting anything.
  mkdirSync(join(dir, 'scripts/lint'), { recursive: true });
  copyFileSync(join(root, 'scripts/lint/house-rules.mjs'), join(dir, 'scripts/lint/house-rules.mjs'));
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  const file = join(dir, 'src', path);
  mkdirSync(resolve(file, '..'), { recursive: true });
  writeFileSync(file, source);
  const run = spawnSync(join(root, 'node_modules/.bin/oxlint'), ['-c', '.oxlintrc.json', '--deny-warnings', 'src'], {
    cwd: dir,
    encoding: 'utf8',
  });
  return [...run.stdout.matchAll(/no-restricted-imports\): '([^']+)' import is restricted/g)].map((match) => match[1]);
}

describe('the linter keeps src/engine/ and src/client/ free of the service', () => {
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('refuses Nest, TypeORM, BullMQ and ioredis in the engine, and any import that climbs out of it into src/', () => {
    const refused = lintAsSourceFile(
      'engine/planner/probe.ts',
      [
        "import { Injectable } from '@nestjs/common';",
        "import { DataSource } from 'typeorm';",
        "import { Queue } from 'bullmq';",
        "import { Redis } from 'ioredis';",
        "import { APP_CONFIG } from '../../config/app-config.js';",
        "import { JobRepository } from '../../job/job.repository.js';",
        "import { FetCode } from '../errors/fet-code.js';",
        'export const used = [Injectable, DataSource, Queue, Redis, APP_CONFIG, JobRepository, FetCode];',
        '',
      ].join('\n'),
    );
    expect(refused.sort()).toEqual([
      '../../config/app-config.js',
      '../../job/job.repository.js',
      '@nestjs/common',
      'bullmq',
      'ioredis',
      'typeorm',
    ]);
  });

  it('refuses Nest, TypeORM and any import of the service in src/client/, which ships to products on its own', () => {
    const refused = lintAsSourceFile(
      'client/fetcher-client-extra.ts',
      [
        "import { Injectable } from '@nestjs/common';",
        "import { DataSource } from 'typeorm';",
        "import { JobResponseDto } from '../job/dto/job-response.dto.js';",
        "import { FetCode } from '../common/errors/fet-code.js';",
        "import { createEngine } from '../engine/index.js';",
        "import createClient from 'openapi-fetch';",
        "import type { paths } from './openapi.js';",
        'export const used: unknown[] = [Injectable, DataSource, JobResponseDto, FetCode, createEngine, createClient];',
        'export type Paths = paths;',
        '',
      ].join('\n'),
    );
    expect(refused.sort()).toEqual([
      '../common/errors/fet-code.js',
      '../engine/index.js',
      '../job/dto/job-response.dto.js',
      '@nestjs/common',
      'typeorm',
    ]);
  });
});
