import { createRequire } from 'node:module';

const requireDriver = createRequire(import.meta.url);

/**
 * A database driver loaded when a connection of its engine is first used, not at boot: a process
 * that never talks to SQL Server, MongoDB or MySQL never loads their drivers (about 15 MiB of a
 * worker's idle RSS here). The drivers are CommonJS, so the load is synchronous and the first call
 * stays an ordinary function call. (Oracle's driver loads the same way, in oracle-driver.ts.)
 */
export function lazyDriver<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= requireDriver(name) as T);
}
