import { existsSync, readFileSync } from 'node:fs';

/** One JSON log line as pino writes it. */
export interface LogLine {
  level: number;
  time: number;
  msg: string;
  [field: string]: unknown;
}

/** Every line of a JSON-lines log file so far; a line that is not JSON fails the test that reads it. */
export function readLogLines(file: string): LogLine[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as LogLine);
}

/** The first line matching `found`, waiting for the asynchronous destination to write it. */
export async function waitForLogLine(file: string, found: (line: LogLine) => boolean, timeoutMs = 5_000): Promise<LogLine> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const line = readLogLines(file).find(found);
    if (line) return line;
    if (Date.now() > deadline) throw new Error(`no such log line in ${file} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The access line of the request answered with `requestId`. */
export const accessLineOf = (requestId: string) => (line: LogLine) => line.msg === 'request completed' && line.requestId === requestId;
