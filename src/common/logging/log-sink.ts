import type { DestinationStream } from 'pino';

/** Where one application's lines go: stdout, a file or a pretty printer. */
export interface LogDestination extends DestinationStream {
  /** Writes out what is buffered, synchronously: called at shutdown, before the process may be killed. */
  flushSync(): void;
  /** Writes out everything, including a write already under way, and releases the file (never stdout itself). */
  end(): Promise<void>;
}

/**
 * The stream of the process's one root logger. nestjs-pino builds that logger once per process
 * (the first application's options win) and Nest's static Logger is process-wide too, so an
 * application cannot own the stream itself: it attaches its destination here while it runs. In
 * production that is one application for the life of the process; a test process boots several
 * in turn (sometimes two at once: lines then go to the newest), each with its own file.
 */
class LogSink implements DestinationStream {
  private readonly attached: LogDestination[] = [];

  write(line: string): void {
    // Nothing attached: before the first application or after the last one closed. Dropped, as a
    // closed application's late lines (a timer firing after close) have nowhere to go.
    this.attached.at(-1)?.write(line);
  }

  flush(): void {
    this.attached.at(-1)?.flushSync();
  }

  attach(destination: LogDestination): void {
    this.attached.push(destination);
  }

  detach(destination: LogDestination): void {
    const index = this.attached.lastIndexOf(destination);
    if (index >= 0) this.attached.splice(index, 1);
  }
}

export const logSink = new LogSink();
