/**
 * Replica assignment against Kafka's own expectations: the exact assignments of AdminUtils'
 * tests for fixed start indexes, the distribution checks of its rack-aware tests (run here for
 * every start index and shift a random draw could give, where Kafka's tests try one), the
 * placements its ZooKeeper-era AddPartitionsTest saw, and properties over random clusters.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { assignReplicas, assignReplicasForNewPartitions, type BrokerPlacement } from '../../../../src/metadata/admin/replica-assignment.js';
import { ErrorCode } from '@sluice/protocol/errors.js';

type Assignment = Map<number, number[]>;

function racked(racks: Record<number, string | null>): BrokerPlacement[] {
  return Object.entries(racks).map(([id, rack]) => ({ id: Number(id), rack }));
}

function rackless(...ids: number[]): BrokerPlacement[] {
  return ids.map((id) => ({ id, rack: null }));
}

/** A random source whose draws are these indexes into `bound` brokers, in order. */
function draws(bound: number, ...indexes: number[]): () => number {
  let next = 0;
  return () => (indexes[next++]! + 0.5) / bound;
}

/** Every (start index, shift) pair the two random draws can give, as assignment options. */
function everyStart(bound: number): Array<{ label: string; random: () => number }> {
  const out: Array<{ label: string; random: () => number }> = [];
  for (let start = 0; start < bound; start++) {
    for (let shift = 0; shift < bound; shift++) out.push({ label: `start ${start}, shift ${shift}`, random: draws(bound, start, shift) });
  }
  return out;
}

function isKafkaError(code: number, message?: string): (err: unknown) => boolean {
  return (err) => err instanceof KafkaError && err.code === code && (message === undefined || err.message === message);
}

function count<T>(items: readonly T[]): Map<T, number> {
  const out = new Map<T, number>();
  for (const item of items) out.set(item, (out.get(item) ?? 0) + 1);
  return out;
}

interface Checks {
  readonly rackAware?: boolean;
  readonly leaders?: boolean;
  readonly replicas?: boolean;
}

/** Kafka's `checkReplicaDistribution`: no broker twice in a partition, then the checks asked for. */
function checkDistribution(
  assignment: Assignment,
  rackOf: Record<number, string>,
  partitions: number,
  replicationFactor: number,
  { rackAware = true, leaders = true, replicas = true }: Checks,
  where: string,
): void {
  const brokers = Object.keys(rackOf).map(Number);
  assert.equal(assignment.size, partitions, where);
  for (const [partition, list] of assignment) {
    assert.equal(list.length, replicationFactor, `${where}: partition ${partition} has ${list.length} replicas`);
    assert.equal(new Set(list).size, list.length, `${where}: partition ${partition} has a broker twice: ${list.join(',')}`);
    if (rackAware)
      assert.equal(new Set(list.map((b) => rackOf[b])).size, replicationFactor, `${where}: partition ${partition} shares a rack`);
  }
  if (leaders) {
    const led = count([...assignment.values()].map((l) => l[0]!));
    for (const b of brokers) assert.equal(led.get(b) ?? 0, partitions / brokers.length, `${where}: broker ${b} leads unevenly`);
  }
  if (replicas) {
    const held = count([...assignment.values()].flat());
    for (const b of brokers)
      assert.equal(held.get(b) ?? 0, (partitions * replicationFactor) / brokers.length, `${where}: broker ${b} holds unevenly`);
  }
}

function racksPerPartition(assignment: Assignment, rackOf: Record<number, string>): number[] {
  return [...assignment.values()].map((list) => new Set(list.map((b) => rackOf[b])).size);
}

const SIX_IN_THREE_RACKS = { 0: 'rack1', 1: 'rack2', 2: 'rack2', 3: 'rack3', 4: 'rack3', 5: 'rack1' };

describe('without racks', () => {
  test("Kafka's assignment of 10 partitions, factor 3, over 5 brokers from index 0", () => {
    const expected = new Map([
      [0, [0, 1, 2]],
      [1, [1, 2, 3]],
      [2, [2, 3, 4]],
      [3, [3, 4, 0]],
      [4, [4, 0, 1]],
      [5, [0, 2, 3]],
      [6, [1, 3, 4]],
      [7, [2, 4, 0]],
      [8, [3, 0, 1]],
      [9, [4, 1, 2]],
    ]);
    assert.deepEqual(assignReplicas(rackless(0, 1, 2, 3, 4), 10, 3, { fixedStartIndex: 0 }), expected);
  });

  test('brokers are taken in id order, whatever order they come in', () => {
    assert.deepEqual(
      assignReplicas(rackless(4, 2, 0, 3, 1), 10, 3, { fixedStartIndex: 1 }),
      assignReplicas(rackless(0, 1, 2, 3, 4), 10, 3, { fixedStartIndex: 1 }),
    );
  });

  test('the first random draw is the start index and the second the follower shift', () => {
    // Start at broker 1; shift 3 puts the follower 1 + (3 mod 4) = 4 places on, at broker 0.
    assert.deepEqual(assignReplicas(rackless(0, 1, 2, 3, 4), 1, 2, { random: draws(5, 1, 3) }), new Map([[0, [1, 0]]]));
    assert.deepEqual(
      assignReplicas(rackless(0, 1, 2, 3, 4), 1, 2, { fixedStartIndex: 1 }),
      new Map([[0, [1, 3]]]),
      'a fixed index is both',
    );
  });

  test('from startPartitionId on, leaders carry on the round-robin; the shift starts afresh and grows at the next round', () => {
    const tail = assignReplicas(rackless(0, 1, 2, 3), 4, 2, { fixedStartIndex: 1, startPartitionId: 5 });
    assert.deepEqual(
      tail,
      new Map([
        [5, [2, 0]],
        [6, [3, 1]],
        [7, [0, 2]],
        [8, [1, 0]],
      ]),
    );
    const whole = assignReplicas(rackless(0, 1, 2, 3), 9, 2, { fixedStartIndex: 1 });
    assert.deepEqual(
      [5, 6, 7, 8].map((p) => tail.get(p)![0]),
      [5, 6, 7, 8].map((p) => whole.get(p)![0]),
    );
  });

  test("a factor below 1 or above the broker count, or no partitions, is refused with Kafka's codes and messages", () => {
    const brokers = rackless(0, 1, 2, 3, 4);
    assert.throws(
      () => assignReplicas(brokers, 10, 0),
      isKafkaError(ErrorCode.INVALID_REPLICATION_FACTOR, 'Replication factor must be larger than 0.'),
    );
    assert.throws(
      () => assignReplicas(brokers, 10, 6),
      isKafkaError(ErrorCode.INVALID_REPLICATION_FACTOR, 'Replication factor: 6 larger than available brokers: 5.'),
    );
    assert.throws(
      () => assignReplicas(brokers, 0, 3),
      isKafkaError(ErrorCode.INVALID_PARTITIONS, 'Number of partitions must be larger than 0.'),
    );
  });

  test('a negative or fractional start is a caller error, not a Kafka answer', () => {
    assert.throws(() => assignReplicas(rackless(0, 1), 1, 1, { fixedStartIndex: -1 }), RangeError);
    assert.throws(() => assignReplicas(rackless(0, 1), 1, 1, { startPartitionId: 0.5 }), RangeError);
  });
});

describe('with racks', () => {
  const rackMap = { 0: 'rack1', 1: 'rack3', 2: 'rack3', 3: 'rack2', 4: 'rack2', 5: 'rack1' };

  test('the leaders of a factor-1 walk follow the rack-alternated broker list', () => {
    const leaders = (racks: Record<number, string>, n: number): number[] =>
      [...assignReplicas(racked(racks), n, 1, { fixedStartIndex: 0 }).values()].map((l) => l[0]!);
    assert.deepEqual(leaders(rackMap, 6), [0, 3, 1, 5, 4, 2]);
    const { 5: _dropped, ...withoutFive } = rackMap;
    assert.deepEqual(leaders(withoutFive, 5), [0, 3, 1, 4, 2]);
  });

  test("Kafka's assignment of 7 partitions, factor 3, from index 0: the seventh shifts its followers", () => {
    const expected = new Map([
      [0, [0, 3, 1]],
      [1, [3, 1, 5]],
      [2, [1, 5, 4]],
      [3, [5, 4, 2]],
      [4, [4, 2, 0]],
      [5, [2, 0, 3]],
      [6, [0, 4, 2]],
    ]);
    assert.deepEqual(assignReplicas(racked(rackMap), 7, 3, { fixedStartIndex: 0 }), expected);
  });

  test('6 brokers in 3 racks, 6 partitions of factor 3 from index 2: one replica a rack, even leaders and replicas', () => {
    checkDistribution(assignReplicas(racked(SIX_IN_THREE_RACKS), 6, 3, { fixedStartIndex: 2 }), SIX_IN_THREE_RACKS, 6, 3, {}, 'index 2');
  });

  test('the same from any random start', () => {
    for (const { label, random } of everyStart(6))
      checkDistribution(assignReplicas(racked(SIX_IN_THREE_RACKS), 6, 3, { random }), SIX_IN_THREE_RACKS, 6, 3, {}, label);
  });

  test('13 partitions (not a multiple of the brokers) still keep each partition in 3 racks', () => {
    checkDistribution(
      assignReplicas(racked(SIX_IN_THREE_RACKS), 13, 3, { fixedStartIndex: 0 }),
      SIX_IN_THREE_RACKS,
      13,
      3,
      { leaders: false, replicas: false },
      'index 0',
    );
  });

  test('uneven racks keep rack awareness and even leaders', () => {
    const uneven = { 0: 'rack1', 1: 'rack1', 2: 'rack2', 3: 'rack3', 4: 'rack3', 5: 'rack1' };
    for (const { label, random } of everyStart(6))
      checkDistribution(assignReplicas(racked(uneven), 12, 3, { random }), uneven, 12, 3, { replicas: false }, label);
  });

  test('factor 2 over 12 and over 6 partitions, from any start', () => {
    for (const partitions of [12, 6]) {
      for (const { label, random } of everyStart(6)) {
        checkDistribution(
          assignReplicas(racked(SIX_IN_THREE_RACKS), partitions, 2, { random }),
          SIX_IN_THREE_RACKS,
          partitions,
          2,
          {},
          `${partitions} partitions, ${label}`,
        );
      }
    }
  });

  test('an expansion from partition 12 over brokers 6-11 distributes as a fresh topic does', () => {
    const racks = { 6: 'rack1', 7: 'rack2', 8: 'rack2', 9: 'rack3', 10: 'rack3', 11: 'rack1' };
    for (const { label, random } of everyStart(6)) {
      const assignment = assignReplicas(racked(racks), 12, 2, { random, startPartitionId: 12 });
      assert.deepEqual(
        [...assignment.keys()],
        Array.from({ length: 12 }, (_, i) => 12 + i),
      );
      checkDistribution(assignment, racks, 12, 2, {}, label);
    }
  });

  test('3 brokers in 3 racks, 3 partitions of factor 2', () => {
    const racks = { 0: 'rack1', 1: 'rack2', 4: 'rack3' };
    for (const { label, random } of everyStart(3))
      checkDistribution(assignReplicas(racked(racks), 3, 2, { random }), racks, 3, 2, {}, label);
  });

  test('96 partitions of factor 3 over 12 brokers in 3 racks', () => {
    const racks = {
      0: 'rack1',
      1: 'rack2',
      2: 'rack2',
      3: 'rack3',
      4: 'rack3',
      5: 'rack1',
      6: 'rack1',
      7: 'rack2',
      8: 'rack2',
      9: 'rack3',
      10: 'rack1',
      11: 'rack3',
    };
    for (const { label, random } of everyStart(12))
      checkDistribution(assignReplicas(racked(racks), 96, 3, { random }), racks, 96, 3, {}, label);
  });

  test('more replicas than racks reach every rack; fewer reach as many racks as replicas; one rack is one rack', () => {
    const racks = { 0: 'rack1', 1: 'rack2', 2: 'rack2', 3: 'rack3', 4: 'rack3', 5: 'rack2' };
    for (const { label, random } of everyStart(6)) {
      assert.deepEqual(racksPerPartition(assignReplicas(racked(racks), 6, 5, { random }), racks), [3, 3, 3, 3, 3, 3], `factor 5, ${label}`);
    }
    for (const { label, random } of everyStart(6)) {
      assert.deepEqual(racksPerPartition(assignReplicas(racked(racks), 6, 2, { random }), racks), [2, 2, 2, 2, 2, 2], `factor 2, ${label}`);
    }
    const single = { 0: 'rack1', 1: 'rack1', 2: 'rack1', 3: 'rack1', 4: 'rack1', 5: 'rack1' };
    for (const { label, random } of everyStart(6)) {
      const assignment = assignReplicas(racked(single), 6, 3, { random });
      assert.deepEqual(racksPerPartition(assignment, single), [1, 1, 1, 1, 1, 1], label);
      checkDistribution(assignment, single, 6, 3, { rackAware: false, replicas: false }, label);
    }
  });

  test('a broker already holding a replica is skipped once its rack is the only one left to fill', () => {
    const racks = { 0: 'a', 1: 'b', 2: 'c', 3: 'a', 4: 'a' };
    checkDistribution(
      assignReplicas(racked(racks), 6, 4, { fixedStartIndex: 2 }),
      racks,
      6,
      4,
      { rackAware: false, leaders: false, replicas: false },
      'index 2',
    );
  });

  test('brokers of which only some have a rack are refused, after the count checks, unless racks are ignored', () => {
    const mixed = racked({ 0: 'rack1', 1: 'rack3', 2: 'rack3', 3: 'rack2', 4: null });
    assert.throws(() => assignReplicas(mixed, 0, 0), isKafkaError(ErrorCode.INVALID_PARTITIONS));
    assert.throws(() => assignReplicas(mixed, 10, 0), isKafkaError(ErrorCode.INVALID_REPLICATION_FACTOR));
    assert.throws(() => assignReplicas(mixed, 10, 6), isKafkaError(ErrorCode.INVALID_REPLICATION_FACTOR));
    assert.throws(
      () => assignReplicas(mixed, 10, 5),
      isKafkaError(ErrorCode.INVALID_REPLICA_ASSIGNMENT, 'Not all brokers have rack information for replica rack aware assignment.'),
    );
    assert.deepEqual(
      assignReplicas(mixed, 10, 3, { fixedStartIndex: 0, ignoreRacks: true }),
      assignReplicas(rackless(0, 1, 2, 3, 4), 10, 3, { fixedStartIndex: 0 }),
    );
  });
});

describe('partitions added to a topic', () => {
  const four = rackless(0, 1, 2, 3);

  test("Kafka's placements for a topic of 4 replicas on [2, 3, 0, 1] grown to 7 partitions", () => {
    const expected = new Map([
      [1, [3, 2, 0, 1]],
      [2, [0, 3, 1, 2]],
      [3, [1, 0, 2, 3]],
      [4, [2, 3, 0, 1]],
      [5, [3, 0, 1, 2]],
      [6, [0, 1, 2, 3]],
    ]);
    assert.deepEqual(assignReplicasForNewPartitions(four, [[2, 3, 0, 1]], 6), expected);
  });

  test("Kafka's placements for a topic of 2 replicas on [1, 2] grown to 3 partitions", () => {
    assert.deepEqual(
      assignReplicasForNewPartitions(four, [[1, 2]], 2),
      new Map([
        [1, [2, 0]],
        [2, [3, 1]],
      ]),
    );
  });

  test("the walk starts at the first broker whose id is at least partition 0's leader, else at the first broker", () => {
    const brokers = rackless(0, 1, 3, 4);
    const existing = [
      [2, 4],
      [3, 0],
    ];
    assert.deepEqual(
      assignReplicasForNewPartitions(brokers, existing, 3),
      assignReplicas(brokers, 3, 2, { fixedStartIndex: 2, startPartitionId: 2 }),
    );
    assert.deepEqual(
      assignReplicasForNewPartitions(brokers, [[9, 1]], 2),
      assignReplicas(brokers, 2, 2, { fixedStartIndex: 0, startPartitionId: 1 }),
    );
  });

  test('racks count as for a new topic, and ignoring them is passed on', () => {
    const racks = racked(SIX_IN_THREE_RACKS);
    assert.deepEqual(
      assignReplicasForNewPartitions(racks, [[3, 5, 1]], 4),
      assignReplicas(racks, 4, 3, { fixedStartIndex: 3, startPartitionId: 1 }),
    );
    const mixed = racked({ 0: 'rack1', 1: null, 2: 'rack2' });
    assert.throws(() => assignReplicasForNewPartitions(mixed, [[0, 1]], 1), isKafkaError(ErrorCode.INVALID_REPLICA_ASSIGNMENT));
    assert.deepEqual(
      assignReplicasForNewPartitions(mixed, [[0, 1]], 1, { ignoreRacks: true }),
      assignReplicasForNewPartitions(rackless(0, 1, 2), [[0, 1]], 1),
    );
  });

  test('adding no partitions is refused; a topic without partition 0 is a caller error', () => {
    assert.throws(() => assignReplicasForNewPartitions(four, [[0, 1]], 0), isKafkaError(ErrorCode.INVALID_PARTITIONS));
    assert.throws(() => assignReplicasForNewPartitions(four, [], 1), RangeError);
  });
});

describe('properties over random clusters', () => {
  /** Unique broker ids, each with a rack from `rackCount` racks, or all rackless when rackCount is 0. */
  const cluster = fc
    .record({
      ids: fc.uniqueArray(fc.integer({ min: 0, max: 1000 }), { minLength: 1, maxLength: 12 }),
      rackCount: fc.integer({ min: 0, max: 4 }),
      seed: fc.integer(),
    })
    .map(({ ids, rackCount, seed }) => ids.map((id, i) => ({ id, rack: rackCount === 0 ? null : `r${(i * 7 + seed) % rackCount}` })));
  const random = fc
    .infiniteStream(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }))
    .map((s) => () => s.next().value as number);

  test('every partition gets the factor in distinct brokers, spread over as many racks as it can', () => {
    fc.assert(
      fc.property(
        cluster,
        fc.integer({ min: 1, max: 40 }),
        fc.nat(12),
        fc.nat(50),
        random,
        (brokers, partitions, f, startPartitionId, rnd) => {
          const replicationFactor = 1 + (f % brokers.length);
          const assignment = assignReplicas(brokers, partitions, replicationFactor, { startPartitionId, random: rnd });
          assert.deepEqual(
            [...assignment.keys()],
            Array.from({ length: partitions }, (_, i) => startPartitionId + i),
          );
          const rackOf = new Map(brokers.map((b) => [b.id, b.rack]));
          const racks = new Set(rackOf.values()).size;
          for (const list of assignment.values()) {
            assert.equal(new Set(list).size, replicationFactor);
            assert.ok(list.every((b) => rackOf.has(b)));
            assert.equal(new Set(list.map((b) => rackOf.get(b))).size, Math.min(replicationFactor, racks));
          }
        },
      ),
    );
  });

  test('whole rounds of partitions lead evenly; without racks they hold evenly too', () => {
    fc.assert(
      fc.property(cluster, fc.integer({ min: 1, max: 4 }), fc.nat(12), random, (brokers, rounds, f, rnd) => {
        const replicationFactor = 1 + (f % brokers.length);
        const partitions = rounds * brokers.length;
        const assignment = assignReplicas(brokers, partitions, replicationFactor, { random: rnd });
        const led = count([...assignment.values()].map((l) => l[0]!));
        for (const b of brokers) assert.equal(led.get(b.id), rounds);
        if (brokers[0]!.rack === null) {
          const held = count([...assignment.values()].flat());
          for (const b of brokers) assert.equal(held.get(b.id), rounds * replicationFactor);
        }
      }),
    );
  });

  test('with racks of equal size, no rack holds more than ceil(factor / racks) replicas of a partition', () => {
    const balanced = fc
      .record({
        racks: fc.integer({ min: 1, max: 4 }),
        perRack: fc.integer({ min: 1, max: 4 }),
        ids: fc.uniqueArray(fc.nat(1000), { minLength: 16, maxLength: 16 }),
      })
      .map(({ racks, perRack, ids }) => ids.slice(0, racks * perRack).map((id, i) => ({ id, rack: `rack${i % racks}` })));
    fc.assert(
      fc.property(balanced, fc.integer({ min: 1, max: 30 }), fc.nat(16), random, (brokers, partitions, f, rnd) => {
        const replicationFactor = 1 + (f % brokers.length);
        const racks = new Set(brokers.map((b) => b.rack)).size;
        const rackOf = new Map(brokers.map((b) => [b.id, b.rack]));
        for (const list of assignReplicas(brokers, partitions, replicationFactor, { random: rnd }).values()) {
          const most = Math.max(...count(list.map((b) => rackOf.get(b))).values());
          assert.ok(most <= Math.ceil(replicationFactor / racks), `${list.join(',')} puts ${most} replicas in one rack`);
        }
      }),
    );
  });
});
