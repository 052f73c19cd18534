/**
 * A member's partitions, keyed by topic id as KIP-848 names topics. Values are treated as
 * immutable: every change builds a new map, so a member object can be compared and kept as a
 * snapshot (replay and live updates share them).
 */
export type Assignment = ReadonlyMap<string, ReadonlySet<number>>;

export const EMPTY_ASSIGNMENT: Assignment = new Map();

export interface TopicPartitionList {
  topicId: string;
  partitions: number[];
}

/** From the wire/record shape; empty partition lists are dropped so equal assignments compare equal. */
export function assignmentFromList(list: ReadonlyArray<{ topicId: string; partitions: readonly number[] }>): Assignment {
  const out = new Map<string, Set<number>>();
  for (const t of list) {
    if (t.partitions.length === 0) continue;
    let set = out.get(t.topicId);
    if (set === undefined) out.set(t.topicId, (set = new Set()));
    for (const p of t.partitions) set.add(p);
  }
  return out;
}

/** Sorted by topic id then partition, so records and responses are reproducible. */
export function assignmentToList(a: Assignment): TopicPartitionList[] {
  return [...a.keys()].sort().map((topicId) => ({ topicId, partitions: [...a.get(topicId)!].sort((x, y) => x - y) }));
}

export function assignmentsEqual(a: Assignment, b: Assignment): boolean {
  if (a.size !== b.size) return false;
  for (const [topicId, partitions] of a) {
    const other = b.get(topicId);
    if (other === undefined || other.size !== partitions.size) return false;
    for (const p of partitions) if (!other.has(p)) return false;
  }
  return true;
}

/** Builds an assignment from (topicId, partition) pairs. */
export function assignmentOfPairs(pairs: Iterable<readonly [string, number]>): Assignment {
  const out = new Map<string, Set<number>>();
  for (const [topicId, p] of pairs) {
    let set = out.get(topicId);
    if (set === undefined) out.set(topicId, (set = new Set()));
    set.add(p);
  }
  return out;
}

export function* pairsOf(a: Assignment): Generator<[string, number]> {
  for (const [topicId, partitions] of a) for (const p of partitions) yield [topicId, p];
}
