/**
 * Kafka's partition leader election rules (`PartitionLeaderElectionAlgorithms`), pure so the
 * controller and its tests share them. The assignment's order is the preference order: the first
 * eligible replica leads.
 */

export interface Election {
  readonly leader: number;
  readonly isr: readonly number[];
}

/** How an offline partition's leader was found: which guarantee the new leader's log comes with. */
export type ElectionKind = 'isr' | 'eligible' | 'unclean';

export interface OfflineElection extends Election {
  readonly kind: ElectionKind;
}

/**
 * A partition whose leader is gone: the first replica that is alive and in the ISR; failing
 * that, the first live eligible leader replica (`eligible`, see `eligibleAfterIsrChange`), alone
 * in the ISR; with `unclean.leader.election.enable`, failing that, the first alive replica, alone
 * in the ISR (records it lacks are lost, which is why Kafka leaves it off by default). Null: no
 * leader.
 */
export function offlineElection(
  assignment: readonly number[],
  isr: readonly number[],
  eligible: readonly number[],
  isLive: (id: number) => boolean,
  unclean: boolean,
): OfflineElection | null {
  const liveIsr = isr.filter(isLive);
  const leader = assignment.find((id) => isLive(id) && liveIsr.includes(id));
  if (leader !== undefined) return { leader, isr: liveIsr, kind: 'isr' };
  const fromEligible = assignment.find((id) => isLive(id) && eligible.includes(id));
  if (fromEligible !== undefined) return { leader: fromEligible, isr: [fromEligible], kind: 'eligible' };
  if (!unclean) return null;
  const fallback = assignment.find(isLive);
  return fallback === undefined ? null : { leader: fallback, isr: [fallback], kind: 'unclean' };
}

/**
 * KIP-966's eligible leader replicas (ELR), as far as ZooKeeper mode allows: the replicas that
 * left the ISR while the ISR was, or became, smaller than `min.insync.replicas`. The leader's
 * high watermark does not move while its ISR is that small, and a replica leaves the ISR holding
 * every record below the high watermark of that moment (it was in the ISR the high watermark was
 * computed over), so each of them holds every committed record and may lead cleanly when no ISR
 * member is left. A replica that left while the ISR stayed large enough may lack records
 * committed after it left: it never joins. Once the ISR is back at `min.insync.replicas` the high
 * watermark moves again and the set empties; a replica back in the ISR leaves it.
 *
 * `minIsr` is the effective value (at most the replication factor), as the leader computes it.
 */
export function eligibleAfterIsrChange(
  eligible: readonly number[],
  before: readonly number[],
  after: readonly number[],
  minIsr: number,
): number[] {
  if (after.length >= minIsr) return [];
  const joined = [...eligible, ...before.filter((id) => !after.includes(id) && !eligible.includes(id))];
  return joined.filter((id) => !after.includes(id));
}

/** A leader shutting down in a controlled way hands over to the first other in-sync replica that stays. */
export function controlledShutdownElection(
  assignment: readonly number[],
  isr: readonly number[],
  isLive: (id: number) => boolean,
  shuttingDown: ReadonlySet<number>,
): Election | null {
  const staying = isr.filter((id) => isLive(id) && !shuttingDown.has(id));
  const leader = assignment.find((id) => staying.includes(id));
  return leader === undefined ? null : { leader, isr: staying };
}

/** Preferred leader election: the first replica of the assignment, if it is alive and in sync. */
export function preferredElection(assignment: readonly number[], isr: readonly number[], isLive: (id: number) => boolean): Election | null {
  const preferred = assignment[0];
  return preferred !== undefined && isLive(preferred) && isr.includes(preferred) ? { leader: preferred, isr } : null;
}

/** Two replica lists in the same order (a leader's proposal that repeats the committed ISR, a target equal to the replicas). */
export function sameOrder(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
