/** Connection-level failures of the job store (as opposed to a bad statement): answer 503, retry later. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'SQLITE_BUSY',
  'SQLITE_CANTOPEN',
]);
const SQLSTATE_CLASSES = ['08', '53', '57P'];
const MESSAGES = [
  /connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /connection is not established/i,
  /client has encountered a connection error/i,
  /database is locked/i,
];

export function isStoreUnavailable(error: unknown): boolean {
  for (
    let current = error as { code?: unknown; message?: unknown; driverError?: unknown; cause?: unknown } | undefined, depth = 0;
    current && depth < 4;
    depth += 1
  ) {
    const code = typeof current.code === 'string' ? current.code : '';
    if (NETWORK_CODES.has(code) || SQLSTATE_CLASSES.some((prefix) => code.startsWith(prefix) && code.length === 5)) return true;
    if (typeof current.message === 'string' && MESSAGES.some((pattern) => pattern.test(current!.message as string))) return true;
    current = (current.driverError ?? current.cause) as typeof current;
  }
  return false;
}
