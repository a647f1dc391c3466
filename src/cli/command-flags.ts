import { InvalidArgumentError, type Command } from 'commander';
import type { EgressOptions } from '../engine/engine-options.js';

export interface EgressFlags {
  readonly refusePrivateHosts?: boolean;
}

/** The egress flag every command that connects takes. */
export function egressFlags(command: Command): Command {
  return command.option(
    '--refuse-private-hosts',
    'refuse loopback and private networks too (cloud metadata, link-local and reserved addresses are refused always)',
  );
}

export function egressOptions(flags: EgressFlags): EgressOptions {
  return { allowPrivateHosts: flags.refusePrivateHosts !== true };
}

/** A positive integer of milliseconds, for a flag's parser: commander names the flag when it refuses one. */
export function milliseconds(value: string): number {
  const ms = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(ms) || ms < 1)
    throw new InvalidArgumentError('must be a positive integer of milliseconds');
  return ms;
}

/** A positive integer of bytes, for a flag's parser. */
export function bytes(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError('must be a positive integer of bytes');
  return n;
}
