// The fault suite's checker (tools/fault/checker.ts) on crafted histories: each anomaly kind is
// found where it is and nowhere else, and unavailability is the gap between acknowledgements.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ANOMALY_KINDS, check, unavailability, type AnomalyKind } from '../../../tools/fault/checker.js';
import type { FaultEvent, History, StoredRecord, Write } from '../../../tools/fault/history.js';

const acked = (writer: string, seq: number, partition: number, offset: number, doneAtMs = 1_000 + seq): Write => ({
  client: 'java',
  writer,
  seq,
  value: `${writer}-${seq}`,
  partition,
  sentAtMs: doneAtMs - 1,
  outcome: 'acked',
  offset,
  doneAtMs,
});

const stored = (partition: number, offset: number, value: string): StoredRecord => ({ partition, offset, value });

/** Writer j's seq 0..3 on partition 0 at offsets 0..3, and r's seq 0..1 on partition 1: all acked and stored. */
function base(): History {
  const writes = [0, 1, 2, 3].map((s) => acked('j', s, 0, s)).concat([0, 1].map((s) => acked('r', s, 1, s)));
  return {
    partitions: 2,
    writes,
    consumed: [{ group: 'g', partition: 0, offset: 1, value: 'j-1' }],
    commits: [
      { group: 'g', partition: 0, offset: 1, atMs: 10 },
      { group: 'g', partition: 0, offset: 3, atMs: 20 },
    ],
    fetchedOffsets: [{ group: 'g', partition: 0, offset: 3 }],
    faults: [],
    stored: writes.map((w) => stored(w.partition, w.offset!, w.value)),
    endMs: 2_000,
  };
}

function only(history: History, kind: AnomalyKind, count: number): void {
  const result = check(history);
  const expected = Object.fromEntries(ANOMALY_KINDS.map((k) => [k, k === kind ? count : 0]));
  assert.deepEqual(result.counts, expected, JSON.stringify(result.anomalies));
}

test('a clean history has no anomaly', () => {
  const result = check(base());
  assert.deepEqual(result.anomalies, []);
  assert.deepEqual(result.writes, { acked: 6, failed: 0, unknown: 0, failedButStored: 0, unknownStored: 0 });
  assert.equal(result.storedRecords, 6);
});

test('an acknowledged write missing from the log is lost; an unknown or failed one is not', () => {
  const h = base();
  const unknown: Write = { ...acked('j', 4, 0, 4), outcome: 'unknown', offset: undefined };
  const failed: Write = { ...acked('j', 5, 0, 5), outcome: 'failed', offset: undefined, error: 'NOT_ENOUGH_REPLICAS' };
  only({ ...h, writes: [...h.writes, unknown, failed], stored: h.stored.filter((r) => r.value !== 'r-1') }, 'lost', 1);
  const r = check({ ...h, writes: [...h.writes, unknown, failed], stored: [...h.stored, stored(0, 4, 'j-4')] });
  assert.deepEqual(r.writes, { acked: 6, failed: 1, unknown: 1, failedButStored: 0, unknownStored: 1 });
});

test('a value stored twice is a duplicate', () => {
  const h = base();
  only({ ...h, stored: [...h.stored, stored(0, 4, 'j-2')] }, 'duplicated', 1);
});

test('a value nobody sent is reported, in the log and in what consumers read', () => {
  const h = base();
  only({ ...h, stored: [...h.stored, stored(1, 2, 'x-0')] }, 'neverSent', 1);
  only(
    { ...h, consumed: [...h.consumed, { group: 'g', partition: 1, offset: 2, value: 'x-0' }], stored: [...h.stored, stored(1, 2, 'x-0')] },
    'neverSent',
    2,
  );
});

test("a writer's values out of send order on a partition are reordered; other writers interleave freely", () => {
  const h = base();
  const swapped = h.stored.map((r) => (r.value === 'j-1' ? stored(0, 2, 'j-1') : r.value === 'j-2' ? stored(0, 1, 'j-2') : r));
  const writes = h.writes.map((w) => (w.value === 'j-1' ? { ...w, offset: 2 } : w.value === 'j-2' ? { ...w, offset: 1 } : w));
  only({ ...h, writes, stored: swapped, consumed: [] }, 'reordered', 1);
  const interleaved = [acked('a', 0, 0, 0), acked('b', 0, 0, 1), acked('a', 1, 0, 2), acked('b', 1, 0, 3)];
  only({ ...h, writes: interleaved, stored: interleaved.map((w) => stored(0, w.offset!, w.value)), consumed: [] }, 'reordered', 0);
});

test('an acknowledged write stored at another offset than acknowledged is reported', () => {
  const h = base();
  only({ ...h, writes: h.writes.map((w) => (w.value === 'r-1' ? { ...w, offset: 7 } : w)) }, 'wrongOffset', 1);
});

test('a consumer that read a value the final log does not hold there saw a divergent log', () => {
  const h = base();
  only({ ...h, consumed: [{ group: 'g', partition: 0, offset: 1, value: 'j-2' }] }, 'readDiverged', 1);
  only({ ...h, consumed: [{ group: 'g', partition: 0, offset: 9, value: 'j-2' }] }, 'readDiverged', 1);
});

test('a committed offset that goes back, in the commits seen or in the final OffsetFetch, is reported', () => {
  const h = base();
  only({ ...h, commits: [...h.commits, { group: 'g', partition: 0, offset: 2, atMs: 30 }] }, 'offsetsBackwards', 1);
  only({ ...h, fetchedOffsets: [{ group: 'g', partition: 0, offset: 1 }] }, 'offsetsBackwards', 1);
  // Another group, or another partition, has its own offsets.
  only(
    { ...h, commits: [...h.commits, { group: 'h', partition: 0, offset: 0, atMs: 30 }, { group: 'g', partition: 1, offset: 0, atMs: 30 }] },
    'offsetsBackwards',
    0,
  );
});

test("unavailability is the longest gap between acknowledgements in a fault's window, up to the next fault", () => {
  const writes = [1_000, 1_100, 1_200, 3_700, 3_800, 5_000, 5_050, 9_000].map((t, i) => acked('j', i, 0, i, t));
  const faults: FaultEvent[] = [
    { kind: 'kill-leader', target: 'broker 1', startMs: 1_250, healedMs: 3_000, recoveredMs: 3_500 },
    { kind: 'pause', target: 'broker 2', startMs: 4_900, healedMs: 6_000, recoveredMs: 6_500 },
  ];
  const gaps = unavailability({ partitions: 2, writes, faults, endMs: 10_000 });
  assert.deepEqual(
    gaps.map((g) => [g.fault, g.partition, g.ms]),
    [
      // 1200 → 3700 across the first fault; partition 1 had no write at all: the whole window.
      [0, 0, 2_500],
      [0, 1, 3_650],
      // 5050 → 9000 in the second window, which ends with the run.
      [1, 0, 3_950],
      [1, 1, 5_100],
    ],
  );
});
