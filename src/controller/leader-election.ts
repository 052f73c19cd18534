/**
 * Kafka's partition leader election rules (`PartitionLeaderElectionAlgorithms`), pure so the
 * controller and its tests share them. The assignment's order is the preference order: the first
 * eligible replica leads.
 */

export interface Election {
  readonly leader: number;
  readonly isr: readonly number[];
}

/**
 * A partition whose leader is gone: the first replica that is alive and in the ISR; with
 * `unclean.leader.election.enable`, failing that, the first alive replica, alone in the ISR
 * (records it lacks are lost, which is why Kafka leaves it off by default). Null: no leader.
 */
export function offlineElection(assignment: readonly number[], isr: readonly number[], isLive: (id: number) => boolean, unclean: boolean): Election | null {
  const liveIsr = isr.filter(isLive);
  const leader = assignment.find((id) => isLive(id) && liveIsr.includes(id));
  if (leader !== undefined) return { leader, isr: liveIsr };
  if (!unclean) return null;
  const fallback = assignment.find(isLive);
  return fallback === undefined ? null : { leader: fallback, isr: [fallback] };
}

/** A leader shutting down in a controlled way hands over to the first other in-sync replica that stays. */
export function controlledShutdownElection(assignment: readonly number[], isr: readonly number[], isLive: (id: number) => boolean, shuttingDown: ReadonlySet<number>): Election | null {
  const staying = isr.filter((id) => isLive(id) && !shuttingDown.has(id));
  const leader = assignment.find((id) => staying.includes(id));
  return leader === undefined ? null : { leader, isr: staying };
}

/** Preferred leader election: the first replica of the assignment, if it is alive and in sync. */
export function preferredElection(assignment: readonly number[], isr: readonly number[], isLive: (id: number) => boolean): Election | null {
  const preferred = assignment[0];
  return preferred !== undefined && isLive(preferred) && isr.includes(preferred) ? { leader: preferred, isr } : null;
}
