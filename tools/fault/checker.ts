/**
 * Checks a fault run's history (history.ts) the way Jepsen's Kafka workload does: what the
 * brokers acknowledged must be in the final log, once, where it was acknowledged, in its
 * writer's order; nothing may be there that nobody sent; what consumers read must be what the
 * log holds; committed offsets never go back. It also measures, from the acknowledgements, how
 * long each fault left each partition without a successful write.
 */
import type { Commit, FaultEvent, FaultKind, History, StoredRecord, Write } from './history.js';

export const ANOMALY_KINDS = ['lost', 'wrongOffset', 'duplicated', 'neverSent', 'reordered', 'readDiverged', 'offsetsBackwards'] as const;
export type AnomalyKind = (typeof ANOMALY_KINDS)[number];

export interface Anomaly {
  readonly kind: AnomalyKind;
  readonly partition: number;
  readonly detail: string;
}

export interface Unavailability {
  /** Index of the fault in the history. */
  readonly fault: number;
  readonly kind: FaultKind;
  readonly target: string;
  readonly partition: number;
  /** The longest gap between two successful acknowledgements on the partition during the fault's window. */
  readonly ms: number;
}

export interface CheckResult {
  readonly counts: Readonly<Record<AnomalyKind, number>>;
  readonly anomalies: readonly Anomaly[];
  readonly writes: {
    readonly acked: number;
    readonly failed: number;
    readonly unknown: number;
    readonly failedButStored: number;
    readonly unknownStored: number;
  };
  readonly storedRecords: number;
  readonly unavailability: readonly Unavailability[];
}

const at = (partition: number, offset: number): string => `${partition}@${offset}`;

export function check(history: History): CheckResult {
  const anomalies: Anomaly[] = [];
  const add = (kind: AnomalyKind, partition: number, detail: string): void => {
    anomalies.push({ kind, partition, detail });
  };

  const sent = new Map<string, Write>(history.writes.map((w) => [w.value, w]));
  const byValue = new Map<string, StoredRecord[]>();
  const byOffset = new Map<string, StoredRecord>();
  for (const r of history.stored) {
    byOffset.set(at(r.partition, r.offset), r);
    const list = byValue.get(r.value);
    if (list === undefined) byValue.set(r.value, [r]);
    else list.push(r);
  }

  for (const [value, copies] of byValue) {
    const w = sent.get(value);
    if (w === undefined) {
      for (const r of copies) add('neverSent', r.partition, `${value} at ${at(r.partition, r.offset)} was never sent`);
      continue;
    }
    if (copies.length > 1)
      add(
        'duplicated',
        w.partition,
        `${value} is stored ${copies.length} times: ${copies.map((r) => at(r.partition, r.offset)).join(', ')}`,
      );
  }

  for (const w of history.writes) {
    if (w.outcome !== 'acked') continue;
    const copies = byValue.get(w.value);
    if (copies === undefined) {
      add('lost', w.partition, `${w.value} acknowledged at ${at(w.partition, w.offset ?? -1)} (${w.client}) is not in the log`);
    } else if (w.offset !== undefined && !copies.some((r) => r.partition === w.partition && r.offset === w.offset)) {
      add(
        'wrongOffset',
        w.partition,
        `${w.value} acknowledged at ${at(w.partition, w.offset)} is stored at ${copies.map((r) => at(r.partition, r.offset)).join(', ')}`,
      );
    }
  }

  checkOrder(sent, byValue, add);

  for (const c of history.consumed) {
    const stored = byOffset.get(at(c.partition, c.offset));
    if (stored?.value !== c.value) {
      add(
        'readDiverged',
        c.partition,
        `group ${c.group} read ${c.value} at ${at(c.partition, c.offset)}; the log holds ${stored?.value ?? 'nothing'} there`,
      );
    }
    if (!sent.has(c.value))
      add('neverSent', c.partition, `group ${c.group} read ${c.value} at ${at(c.partition, c.offset)}, which was never sent`);
  }

  checkCommits(history, add);

  const count = (o: Write['outcome']): number => history.writes.filter((w) => w.outcome === o).length;
  const counts = Object.fromEntries(ANOMALY_KINDS.map((k) => [k, anomalies.filter((a) => a.kind === k).length])) as Record<
    AnomalyKind,
    number
  >;
  return {
    counts,
    anomalies,
    writes: {
      acked: count('acked'),
      failed: count('failed'),
      unknown: count('unknown'),
      failedButStored: history.writes.filter((w) => w.outcome === 'failed' && byValue.has(w.value)).length,
      unknownStored: history.writes.filter((w) => w.outcome === 'unknown' && byValue.has(w.value)).length,
    },
    storedRecords: history.stored.length,
    unavailability: unavailability(history),
  };
}

/** Each writer's values on a partition, in offset order, must be in its send order. */
function checkOrder(
  sent: Map<string, Write>,
  byValue: Map<string, StoredRecord[]>,
  add: (k: AnomalyKind, p: number, d: string) => void,
): void {
  const lastSeq = new Map<string, { seq: number; value: string; offset: number }>();
  const firstCopies = [...byValue.values()].map((copies) => copies.reduce((a, b) => (b.offset < a.offset ? b : a)));
  firstCopies.sort((a, b) => a.partition - b.partition || a.offset - b.offset);
  for (const r of firstCopies) {
    const w = sent.get(r.value);
    if (w === undefined) continue;
    const key = `${w.writer}/${r.partition}`;
    const prev = lastSeq.get(key);
    if (prev !== undefined && w.seq < prev.seq) {
      add(
        'reordered',
        r.partition,
        `${r.value} at ${at(r.partition, r.offset)} comes after ${prev.value} at ${at(r.partition, prev.offset)}`,
      );
    }
    if (prev === undefined || w.seq > prev.seq) lastSeq.set(key, { seq: w.seq, value: r.value, offset: r.offset });
  }
}

/** A group's committed offset on a partition never decreases, in the commits seen nor in the final OffsetFetch. */
function checkCommits(history: History, add: (k: AnomalyKind, p: number, d: string) => void): void {
  const highest = new Map<string, Commit>();
  const ordered = history.commits.map((c, i) => ({ c, i })).sort((a, b) => a.c.atMs - b.c.atMs || a.i - b.i);
  for (const { c } of ordered) {
    const key = `${c.group}/${c.partition}`;
    const prev = highest.get(key);
    if (prev !== undefined && c.offset < prev.offset) {
      add('offsetsBackwards', c.partition, `group ${c.group} committed ${c.offset} after ${prev.offset}`);
    }
    if (prev === undefined || c.offset > prev.offset) highest.set(key, c);
  }
  for (const f of history.fetchedOffsets) {
    const prev = highest.get(`${f.group}/${f.partition}`);
    if (prev !== undefined && f.offset < prev.offset) {
      add(
        'offsetsBackwards',
        f.partition,
        `group ${f.group}'s committed offset is ${f.offset} after the run, below the ${prev.offset} it committed`,
      );
    }
  }
}

/**
 * For each fault and partition, the longest gap between consecutive acknowledgements within the
 * fault's window (from its start to the next fault's start, or the end of the run): the gap from
 * the last acknowledgement before the fault to the first after it is the time the partition took
 * no write. The window's end closes the last gap, so a partition silent to the end counts whole.
 */
export function unavailability(history: Pick<History, 'writes' | 'faults' | 'partitions' | 'endMs'>): Unavailability[] {
  const acks: number[][] = Array.from({ length: history.partitions }, () => []);
  for (const w of history.writes) if (w.outcome === 'acked' && w.doneAtMs !== undefined) acks[w.partition]?.push(w.doneAtMs);
  for (const list of acks) list.sort((a, b) => a - b);
  return history.faults.flatMap((f: FaultEvent, i) => {
    const windowEnd = history.faults[i + 1]?.startMs ?? history.endMs;
    return acks.map((times, partition): Unavailability => {
      let previous = f.startMs;
      for (const t of times) if (t <= f.startMs) previous = t;
      let longest = 0;
      for (const t of times) {
        if (t <= f.startMs || t >= windowEnd) continue;
        longest = Math.max(longest, t - previous);
        previous = t;
      }
      longest = Math.max(longest, windowEnd - previous);
      return { fault: i, kind: f.kind, target: f.target, partition, ms: longest };
    });
  });
}
