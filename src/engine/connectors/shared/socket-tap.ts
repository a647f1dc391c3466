import type { Readable } from 'node:stream';

/**
 * A listener on a driver's socket that sees each chunk before the driver's own listener does: a
 * message can then be measured, and refused, before the driver buffers it. Detached once, for good.
 */
export abstract class SocketTap {
  /** False once detached: a chunk being read stops at once. */
  protected attached = true;
  private readonly onData = (chunk: Buffer): void => this.onChunk(chunk);

  protected constructor(private readonly socket: Readable) {
    socket.prependListener('data', this.onData);
  }

  detach(): void {
    if (!this.attached) return;
    this.attached = false;
    this.socket.removeListener('data', this.onData);
  }

  protected abstract onChunk(chunk: Buffer): void;
}
