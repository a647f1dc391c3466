/** The retry policy of deliveries (WEBHOOK_RETRY_*). */
export interface RetryPolicy {
  readonly baseMs: number;
  readonly maxMs: number;
  /** From the delivery's event: no attempt is scheduled past it. */
  readonly windowMs: number;
}

export type RetryDecision = { readonly dead: true } | { readonly dead: false; readonly nextAttemptAt: Date };

/**
 * After the `failedAttempts`-th failure: the next attempt after a full-jitter exponential backoff
 * (a uniform delay in [0, min(max, base·2^(n-1))]), so that receivers coming back from an outage
 * are not hit by every sender at once; `dead` once that attempt would fall after the window.
 */
export function nextRetry(
  policy: RetryPolicy,
  failedAttempts: number,
  windowStart: Date,
  now: Date,
  random: () => number = Math.random,
): RetryDecision {
  const ceiling = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.min(40, Math.max(0, failedAttempts - 1)));
  const delay = Math.floor(random() * ceiling);
  const at = now.getTime() + delay;
  if (at > windowStart.getTime() + policy.windowMs) return { dead: true };
  return { dead: false, nextAttemptAt: new Date(at) };
}
