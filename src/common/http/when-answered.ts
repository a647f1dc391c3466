import type { Response } from 'express';

/**
 * Calls `ended` once, when the answer is over: on `finish` when it was sent in full, or on
 * `close` without `finish` when the client went away first (`finished` is then false). The route
 * is known by then, so whatever groups requests by route (access lines, metrics, spans) reads it here.
 */
export function whenAnswered(response: Response, ended: (finished: boolean) => void): void {
  let called = false;
  const once = () => {
    if (called) return;
    called = true;
    ended(response.writableFinished);
  };
  response.once('finish', once);
  response.once('close', once);
}
