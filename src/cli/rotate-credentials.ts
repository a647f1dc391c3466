import 'reflect-metadata';
import { Command } from 'commander';
import { ConfigError } from '../config/load-config.js';
import { CredentialCipher } from '../datasource/credential-cipher.service.js';
import { CredentialRotation, type RotationReport } from '../datasource/credential-rotation.service.js';
import { openDataSource } from '../persistence/persistence.module.js';
import { storeOptions } from '../bootstrap/store-schema.js';
import { WebhookSecretRotation, type WebhookRotationReport } from '../webhook/webhook-secret-rotation.js';
import { loadConfigWithExistingKey } from './cli-config.js';
import { CliError, EXIT, type CliIo } from './cli-io.js';
import { runCommand } from './command-runner.js';

const HELP_AFTER = `
Reads the service's environment (.env when present): the store (DATABASE_URL or SQLITE_PATH/DATA_DIR),
APP_ENC_KEY with APP_ENC_KEY_VERSION (the current key) and APP_ENC_KEY_<version> for every older
version still stored. Migrations are applied as at boot.
Exit code 0 when every row is under the current version; 1 when a row's version is not configured
or does not open (or on any error, a usage error included); 2 when rows changed while it ran are still
under an older version (run it again).`;

/** `fetcher rotate-credentials` (also `npm run rotate-credentials --`). */
export function rotateCredentialsCommand(): Command {
  return new Command('fetcher rotate-credentials')
    .description('Re-encrypt every stored connection secret and webhook signing secret under the current master-key version.')
    .option('--dry-run', 'report what would change, write nothing')
    .showHelpAfterError()
    .addHelpText('after', HELP_AFTER);
}

/** The whole command, free of process globals so tests can drive it. Returns the exit code. */
export function runRotateCredentials(argv: readonly string[], io: CliIo): Promise<number> {
  return runCommand(
    rotateCredentialsCommand(),
    argv,
    io,
    (command) => rotate(command.opts<{ dryRun?: boolean }>().dryRun === true, io),
    EXIT.failed,
  );
}

async function rotate(dryRun: boolean, io: CliIo): Promise<number> {
  const say = (stream: NodeJS.WritableStream, line: string) => stream.write(`${line}\n`);
  try {
    const config = loadConfigWithExistingKey(io.env);
    const dataSource = await openDataSource(storeOptions(config));
    let report: RotationReport;
    let webhooks: WebhookRotationReport;
    try {
      const cipher = new CredentialCipher(config);
      report = await new CredentialRotation(dataSource, cipher).rotate({ dryRun });
      webhooks = await new WebhookSecretRotation(dataSource, cipher).rotate({ dryRun });
    } finally {
      await dataSource.destroy();
    }
    for (const line of describe(report)) say(io.stdout, line);
    say(io.stdout, describeWebhooks(webhooks, dryRun));
    for (const failure of report.failed) say(io.stderr, `failed: connection ${failure.id} (${failure.configName}): ${failure.message}`);
    for (const failure of webhooks.failed) say(io.stderr, `failed: webhook ${failure.id}: ${failure.message}`);
    if (report.failed.length > 0 || webhooks.failed.length > 0) return 1;
    const remaining = (report.remaining ?? 0) + (webhooks.remaining ?? 0);
    return remaining > 0 ? 2 : 0;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    say(io.stderr, error instanceof CliError || error instanceof ConfigError ? `error: ${message}` : `error: rotation stopped: ${message}`);
    return 1;
  }
}

function describe(report: RotationReport): string[] {
  const verb = report.dryRun ? 'would rewrite' : 'rewritten';
  const lines = [
    `${report.dryRun ? 'dry run: nothing written; ' : ''}current key version ${report.currentVersion}`,
    `${verb}: ${report.rewritten}`,
    `already current: ${report.alreadyCurrent}`,
    `skipped (changed concurrently): ${report.skippedConcurrent}`,
    `failed (key version not configured or not matching): ${report.failed.length}`,
  ];
  if (report.remaining !== null) lines.push(`still under an older version: ${report.remaining}`);
  const older = Object.entries(report.resultsByVersion).filter(([version]) => version !== report.currentVersion);
  if (older.length > 0) {
    const list = older
      .map(([version, count]) => `${count} under ${version === 'unknown' ? 'an unrecorded version' : `version ${version}`}`)
      .join(', ');
    lines.push(`completed job results sealed with older keys: ${list}; keep their APP_ENC_KEY_<version> while those results are needed`);
  }
  return lines;
}

function describeWebhooks(report: WebhookRotationReport, dryRun: boolean): string {
  const parts = [
    `${dryRun ? 'would rewrite' : 'rewritten'} ${report.rewritten}`,
    `already current ${report.alreadyCurrent}`,
    `skipped (changed concurrently) ${report.skippedConcurrent}`,
    `failed ${report.failed.length}`,
  ];
  if (report.remaining !== null) parts.push(`still under an older version ${report.remaining}`);
  return `webhook signing secrets: ${parts.join(', ')}`;
}
