/**
 * Retrying what Kafka marks retriable (a leader election, a topic still propagating, a dropped
 * connection) until a deadline, with a short backoff, the way Kafka's clients wait out
 * `LEADER_NOT_AVAILABLE` right after a topic is created.
 */
import { isRetriable } from './client-errors.js';

export interface RetryOptions {
  /** Epoch milliseconds after which the last error is thrown. */
  readonly deadline: number;
  readonly backoffMs?: number;
  /** Runs before each new attempt, e.g. to refresh metadata. */
  readonly beforeRetry?: () => void;
}

const DEFAULT_BACKOFF_MS = 100;

export async function withRetries<T>(attempt: () => Promise<T>, options: RetryOptions): Promise<T> {
  const backoffMs = options.backoffMs ?? DEFAULT_BACKOFF_MS;
  for (;;) {
    try {
      return await attempt();
    } catch (err) {
      if (!isRetriable(err) || Date.now() + backoffMs > options.deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, backoffMs));
      options.beforeRetry?.();
    }
  }
}
