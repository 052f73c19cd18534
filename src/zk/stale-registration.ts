/**
 * Waiting out a registration that a dead process left behind. A broker killed with SIGKILL keeps
 * its ephemeral `/brokers/ids/<id>` until ZooKeeper expires its session, a session timeout after
 * its last heartbeat. Kafka's broker, restarted within that time, fails at once (NODE_EXISTS) and
 * must be started again by hand; here it waits, up to a session timeout, for the znode to go,
 * and only a registration still held after that counts as another live broker with the same id.
 *
 * A live owner cannot be told from a dead one through ZooKeeper's client protocol: only the
 * expiry itself tells. The wait starts once the restarted broker is up, at least a process start
 * after the kill, which covers the server's rounding of expiry times up to its next tick.
 */

/** One try at creating the registration: the new broker epoch, or the session that holds the znode. */
export type RegistrationAttempt = { readonly registered: bigint } | { readonly heldBy: bigint };

export interface StaleRegistrationWait {
  /** Tries to create the znode. */
  readonly attempt: () => Promise<RegistrationAttempt>;
  /** Resolves when the znode is deleted (or already gone), or after `ms`, whichever comes first. */
  readonly untilGone: (ms: number) => Promise<void>;
  /** How long a dead session's registration may outlive it: the session timeout. */
  readonly maxWaitMs: number;
  /** Called once, when the wait starts, to say why the broker does not start yet. */
  readonly onWait: (heldBy: bigint, maxWaitMs: number) => void;
  readonly now?: () => number;
}

/** Registers, waiting out a stale registration; the last attempt's outcome (still held: a live owner). */
export async function registerAfterStaleSession(wait: StaleRegistrationWait): Promise<RegistrationAttempt> {
  const now = wait.now ?? Date.now;
  const deadline = now() + wait.maxWaitMs;
  let waiting = false;
  for (;;) {
    const attempt = await wait.attempt();
    const left = deadline - now();
    if ('registered' in attempt || left <= 0) return attempt;
    if (!waiting) {
      waiting = true;
      wait.onWait(attempt.heldBy, wait.maxWaitMs);
    }
    await wait.untilGone(left);
  }
}
