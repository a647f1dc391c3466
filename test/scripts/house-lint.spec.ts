import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * `npm run lint` holds the rules of docs/architecture.md: each case plants one violation in a
 * scratch copy of the project's lint set-up (its configs, the house plugin, node_modules linked)
 * and runs the same two oxlint passes `npm run lint` runs. A plugin that failed to load would let
 * the lint pass silently, so each rule must be seen to fail.
 */
const root = resolve(import.meta.dirname, '../..');
const TSCONFIG = {
  compilerOptions: { target: 'es2023', module: 'nodenext', moduleResolution: 'nodenext', strict: true, skipLibCheck: true },
  include: ['src/**/*.ts'],
};

let scratch: string;

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'fetcher-house-lint-'));
  for (const file of ['.oxlintrc.json', '.oxlintrc.promises.json', 'scripts/lint/house-rules.mjs']) {
    mkdirSync(dirname(join(scratch, file)), { recursive: true });
    copyFileSync(join(root, file), join(scratch, file));
  }
  symlinkSync(join(root, 'node_modules'), join(scratch, 'node_modules'));
  writeFileSync(join(scratch, 'tsconfig.json'), JSON.stringify(TSCONFIG));
});

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Writes the files (paths under the scratch project), lints `target` with both passes; exit status and output. */
function lint(files: Record<string, string>, target: string): { status: number | null; output: string } {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(scratch, path)), { recursive: true });
    writeFileSync(join(scratch, path), text);
  }
  const oxlint = join(root, 'node_modules/.bin/oxlint');
  const passes = [
    ['--deny-warnings', target],
    ['-c', '.oxlintrc.promises.json', '--type-aware', '--deny-warnings', target],
  ];
  let output = '';
  for (const args of passes) {
    const run = spawnSync(oxlint, args, { cwd: scratch, encoding: 'utf8' });
    output += run.stdout + run.stderr;
    if (run.status !== 0) return { status: run.status, output };
  }
  return { status: 0, output };
}

describe('npm run lint, the house rules', () => {
  it('passes a repository that reads its time from an injected clock and imports downwards', () => {
    const { status, output } = lint(
      {
        'src/job/clean-repository.ts': [
          "import type { Clock } from '../common/clock/clock.js';",
          'export class CleanRepository {',
          '  constructor(private readonly clock: Clock) {}',
          '  stamp(): Date {',
          '    return this.clock.now();',
          '  }',
          '}',
          '',
        ].join('\n'),
        'src/common/clock/clock.ts': 'export abstract class Clock {\n  abstract now(): Date;\n}\n',
      },
      'src/job/clean-repository.ts',
    );
    expect(output).toContain('Found 0 warnings and 0 errors');
    expect(status).toBe(0);
  });

  it('fails on an upward import: persistence/ importing a domain entity', () => {
    const { status, output } = lint(
      {
        'src/persistence/planted.module.ts': "import { jobEntities } from '../job/job.entity.js';\nexport const planted = jobEntities;\n",
        'src/job/job.entity.ts': 'export const jobEntities = [];\n',
      },
      'src/persistence/planted.module.ts',
    );
    expect(status).not.toBe(0);
    expect(output).toContain('house(layering)');
    expect(output).toContain('src/persistence may not import src/job');
  });

  it('fails when common/ imports a domain folder', () => {
    const { status, output } = lint(
      {
        'src/common/planted.ts': "export { JobStatus } from '../job/job-status.js';\n",
        'src/job/job-status.ts': 'export const JobStatus = {};\n',
      },
      'src/common/planted.ts',
    );
    expect(status).not.toBe(0);
    expect(output).toContain('src/common may not import src/job');
  });

  it('fails on Date.now() in a repository, and on new Date(), setInterval and uuid v7', () => {
    const { status, output } = lint(
      {
        'src/job/planted.repository.ts': [
          "import { v7 as uuidv7 } from 'uuid';",
          'export function stamp(): [number, Date, string] {',
          '  setInterval(() => undefined, 1_000);',
          '  return [Date.now(), new Date(), uuidv7()];',
          '}',
          '',
        ].join('\n'),
      },
      'src/job/planted.repository.ts',
    );
    expect(status).not.toBe(0);
    for (const what of ['Date.now: read the time', 'new Date(): read the time', 'setInterval: repeat', 'uuid: new ids']) {
      expect(output).toContain(what);
    }
  });

  it('fails on a floating promise in production code', () => {
    const { status, output } = lint(
      {
        'src/job/planted.service.ts': [
          'async function save(): Promise<void> {}',
          'export function submit(): void {',
          '  save();',
          '}',
          '',
        ].join('\n'),
      },
      'src/job/planted.service.ts',
    );
    expect(status).not.toBe(0);
    expect(output).toContain('typescript(no-floating-promises)');
  });
});
