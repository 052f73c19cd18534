/**
 * The replica object through leader changes, after KIP-101 and KIP-279: two or three replicas,
 * each a `Partition` over its own log on disk, replicating by the leader's `readForFollower` and
 * the follower's `appendAsFollower` / `truncateToDivergence` (what the fetcher does between
 * them), crashing by reopening their logs. After every case the follower's log equals the
 * leader's, offset by offset and epoch by epoch, and nothing the leader committed is gone.
 */
import { leaderEpochOf, offsetOf } from '@sluice/protocol/common/offsets.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Partition } from '../../../src/replication/partition.js';
import { FakeClock, decodeBatches, openLog, producedBatch, tempDir } from '../storage/storage-fixtures.js';
import type { PartitionStateCommand } from '../../../src/replication/partition-state.js';

const ALL = [1, 2, 3];

class Replica {
  readonly dir: { path: string; remove(): void };
  readonly clock = new FakeClock();
  partition: Partition;

  constructor(readonly id: number) {
    this.dir = tempDir(`divergence-${id}`);
    this.partition = this.open();
  }

  private open(): Partition {
    return new Partition(openLog(this.dir.path, this.clock), this.id, { clock: this.clock.now });
  }

  /** A hard failure: the process goes, the log is reopened from disk (recovered). */
  crash(): void {
    this.partition.log.close();
    this.partition = this.open();
  }

  /** The controller's LeaderAndIsr for this replica. */
  become(leader: number, leaderEpoch: number, isr: readonly number[] = ALL): void {
    const state: PartitionStateCommand = { partition: 0, leader, leaderEpoch, partitionEpoch: leaderEpoch, replicas: ALL, isr };
    this.partition.applyState(state, {});
  }

  /** Appends one message, as leader, whose value names it. */
  write(message: number): void {
    this.partition.appendAsLeader(producedBatch(1, 4, 1, message), 1);
  }

  /** [offset, message, epoch] of every record. */
  contents(): Array<[number, number, number]> {
    const epochs = this.partition.log.leaderEpochCache.entries;
    const epochAt = (offset: number): number => epochs.filter((e) => e.startOffset <= offset).at(-1)?.epoch ?? -1;
    return decodeBatches(this.partition.log.readBuffer(offsetOf(0), 1 << 20)).flatMap((b) =>
      b.values.map((v, i): [number, number, number] => [b.baseOffset + i, v[0]!, epochAt(b.baseOffset + i)]),
    );
  }

  remove(): void {
    this.partition.log.close();
    this.dir.remove();
  }
}

/**
 * The follower's fetch loop against the leader until it has the leader's whole log: each fetch
 * names its log end and last epoch; a diverging epoch truncates it. Returns the offsets the
 * follower was truncated to, in order.
 */
function catchUp(leader: Replica, follower: Replica): number[] {
  const truncations: number[] = [];
  const epoch = leader.partition.leaderEpoch;
  for (let round = 0; round < 20; round++) {
    const offset = follower.partition.log.logEndOffset;
    const read = leader.partition.readForFollower(follower.id, epoch, offset, follower.partition.latestEpoch, 1 << 20, true);
    read.slice?.release();
    if (read.divergingEpoch !== null) {
      truncations.push(follower.partition.truncateToDivergence(read.divergingEpoch, epoch));
      continue;
    }
    if (offset >= leader.partition.log.logEndOffset) return truncations;
    const records = leader.partition.log.readBuffer(offset, 1 << 20);
    follower.partition.appendAsFollower(records, leader.partition.highWatermark, leader.partition.log.logStartOffset, epoch);
  }
  throw new Error('the follower did not converge on its leader');
}

function withReplicas(count: number, body: (r: Replica[]) => void): void {
  const list = Array.from({ length: count }, (_, i) => new Replica(i + 1));
  try {
    body(list);
  } finally {
    for (const r of list) r.remove();
  }
}

test('KIP-101 scenario 1: a follower that restarts keeps what it has beyond its high watermark, so a leader change right after loses no committed message', () => {
  withReplicas(2, ([a, b]) => {
    a!.become(1, 0, [1, 2]);
    b!.become(1, 0, [1, 2]);
    a!.write(1);
    a!.write(2);
    catchUp(a!, b!);
    // The leader's high watermark reached 2 on the follower's next fetch; the follower's own
    // high watermark is still behind: what truncating to it on restart would have dropped.
    a!.partition.readForFollower(2, leaderEpochOf(0), offsetOf(2), leaderEpochOf(0), 1 << 20, true).slice?.release();
    assert.equal(a!.partition.highWatermark, 2);
    b!.crash();
    b!.become(1, 1, [1, 2]);
    a!.become(1, 1, [1, 2]);
    assert.deepEqual(catchUp(a!, b!), [], 'nothing to truncate: epoch 0 ends at 2 on both');
    a!.crash();
    b!.become(2, 2, [2]);
    assert.deepEqual(
      b!.contents().map(([offset, message]) => [offset, message]),
      [
        [0, 1],
        [1, 2],
      ],
      'the new leader has both committed messages',
    );
  });
});

test('KIP-101 scenario 2: after both replicas fail, the one that returns first leads; the other truncates to where the epochs agree, not to its high watermark', () => {
  withReplicas(2, ([a, b]) => {
    a!.become(1, 0, [1, 2]);
    b!.become(1, 0, [1, 2]);
    a!.write(1);
    catchUp(a!, b!);
    a!.write(2);
    a!.crash();
    b!.crash();
    // b comes back first and leads epoch 1 alone; m3 takes offset 1, where a holds m2.
    b!.become(2, 1, [2]);
    b!.write(3);
    a!.become(2, 1, [2]);
    assert.deepEqual(catchUp(b!, a!), [1], 'a drops m2: its epoch 0 ended at 1 on the leader');
    assert.deepEqual(a!.contents(), b!.contents());
    assert.deepEqual(a!.contents(), [
      [0, 1, 0],
      [1, 3, 1],
    ]);
  });
});

test('a follower whose log goes on, in the same epoch, past the end of its new leader truncates to that end', () => {
  withReplicas(2, ([a, b]) => {
    a!.become(1, 0, [1, 2]);
    b!.become(1, 0, [1, 2]);
    a!.write(1);
    catchUp(a!, b!);
    a!.write(2);
    a!.write(3);
    b!.become(2, 1, [2]);
    a!.become(2, 1, [2]);
    assert.deepEqual(catchUp(b!, a!), [1]);
    b!.write(4);
    catchUp(b!, a!);
    assert.deepEqual(a!.contents(), [
      [0, 1, 0],
      [1, 4, 1],
    ]);
  });
});

test('KIP-279: after two quick failovers the follower holds an epoch its leader never had; it truncates to the end of their last common epoch', () => {
  withReplicas(2, ([a, b]) => {
    // Epoch 1: a leads; b copies m1 but not m2.
    a!.become(1, 1, [1, 2]);
    b!.become(1, 1, [1, 2]);
    a!.write(1);
    catchUp(a!, b!);
    a!.write(2);
    // Epoch 2: a fails, b leads and writes m3 at offset 1 — then fails before anyone copies it.
    a!.crash();
    b!.become(2, 2, [2]);
    b!.write(3);
    b!.crash();
    // Epoch 3: a returns and leads (an unclean election), writing m4 after its m2.
    a!.become(1, 3, [1]);
    a!.write(4);
    // b returns as a follower: its last epoch 2 is unknown to a, whose largest below it (1)
    // ends at 2. Truncating to min(2, b's end 2) would keep m3 where a has m2.
    b!.become(1, 3, [1]);
    assert.deepEqual(catchUp(a!, b!), [1], "b's epoch 1 ends at 1: m3 goes");
    assert.deepEqual(b!.contents(), a!.contents());
    assert.deepEqual(b!.contents(), [
      [0, 1, 1],
      [1, 2, 1],
      [2, 4, 3],
    ]);
  });
});

test('a follower with an epoch the leader skipped, and without the epoch the leader answers, truncates in two steps', () => {
  withReplicas(2, ([a, b]) => {
    // Both hold epoch 0 (offsets 0-2).
    a!.become(1, 0, [1, 2]);
    b!.become(1, 0, [1, 2]);
    for (const m of [1, 2, 3]) a!.write(m);
    catchUp(a!, b!);
    // b leads epoch 2 alone and writes m4-m6 at 3-5 (a never sees them).
    b!.become(2, 2, [2]);
    for (const m of [4, 5, 6]) b!.write(m);
    b!.crash();
    // a leads epochs 1 and 3 (the controller's epochs as a sees them: 1, then 3), writing m7, m8
    // in epoch 1 at 3-4 and m9 in epoch 3 at 5.
    a!.become(1, 1, [1]);
    a!.write(7);
    a!.write(8);
    a!.become(1, 3, [1]);
    a!.write(9);
    // b fetches at 6 with last epoch 2: a's largest epoch <= 2 is 1, ending at 5. b has no
    // epoch 1: its largest below is 0, which ends at 3 in its log — an intermediate step; the
    // next fetch (last epoch 0 at 3) agrees with a.
    b!.become(1, 3, [1]);
    assert.deepEqual(catchUp(a!, b!), [3]);
    assert.deepEqual(b!.contents(), a!.contents());
    assert.deepEqual(b!.contents(), [
      [0, 1, 0],
      [1, 2, 0],
      [2, 3, 0],
      [3, 7, 1],
      [4, 8, 1],
      [5, 9, 3],
    ]);
  });
});

test('a follower that led an epoch without writing in it forgets that epoch when it truncates, so its next fetch agrees with the leader', () => {
  withReplicas(2, ([a, b]) => {
    a!.become(1, 0, [1, 2]);
    b!.become(1, 0, [1, 2]);
    a!.write(1);
    a!.write(2);
    catchUp(a!, b!);
    // b leads epoch 1 and writes nothing; a leads epoch 2 and writes m3.
    b!.become(2, 1, [2]);
    a!.become(1, 2, [1]);
    a!.write(3);
    b!.become(1, 2, [1]);
    assert.deepEqual(catchUp(a!, b!), [2], 'nothing to cut but the empty epoch');
    assert.deepEqual(b!.contents(), a!.contents());
    assert.deepEqual(b!.partition.log.leaderEpochCache.entries, a!.partition.log.leaderEpochCache.entries);
  });
});
