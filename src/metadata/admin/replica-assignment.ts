/**
 * Where the replicas of new partitions go, as a ZooKeeper-era Kafka controller decides it
 * (`AdminUtils.assignReplicasToBrokers`): a pure function of the brokers, so that a Sluice cluster
 * places partitions as a Kafka 3.9 cluster of the same brokers would, and tests can pin the start.
 *
 * Without racks, the first replica of each partition goes round-robin over the brokers from a
 * start index, and the others follow at a shift that grows by one after each full round, so the
 * followers of one broker's partitions spread over all the others. With racks, the same walk runs
 * over a list that alternates racks, and a follower is skipped when its broker already holds a
 * replica, or its rack does while some rack holds none.
 */
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';

export interface BrokerPlacement {
  readonly id: number;
  /** `broker.rack`, or null when the broker has none. */
  readonly rack: string | null;
}

export interface AssignmentOptions {
  /**
   * The start index into the broker list and the initial follower shift, both; random when
   * absent (Kafka draws the two separately). Tests fix it to get Kafka's exact assignments.
   */
  readonly fixedStartIndex?: number;
  /**
   * The id of the first partition placed (0 for a new topic). Leaders carry on the round-robin
   * from there; the follower shift starts at its initial value and grows at each multiple of
   * the broker count the ids reach.
   */
  readonly startPartitionId?: number;
  /** A source of numbers in [0, 1), for the random start index and shift; Math.random by default. */
  readonly random?: () => number;
  /** Place as if no broker had a rack, instead of refusing brokers of which only some have one. */
  readonly ignoreRacks?: boolean;
}

/**
 * Replica lists by partition id for `partitions` partitions from `startPartitionId` on, the first
 * replica of each being its preferred leader. Brokers are taken in id order, as Kafka's
 * AdminZkClient hands them over. Throws KafkaError: INVALID_PARTITIONS for no partitions,
 * INVALID_REPLICATION_FACTOR for a factor below 1 or above the broker count, and
 * INVALID_REPLICA_ASSIGNMENT when some brokers have a rack and others do not (unless
 * `ignoreRacks`): Kafka refuses to guess where a rackless broker stands. (Kafka 3.9 throws an
 * AdminOperationException there, which its CreateTopics answers as UNKNOWN_SERVER_ERROR with no
 * message; the code here says what is wrong, with Kafka's message.)
 */
export function assignReplicas(
  brokers: readonly BrokerPlacement[],
  partitions: number,
  replicationFactor: number,
  options: AssignmentOptions = {},
): Map<number, number[]> {
  if (partitions <= 0) throw new KafkaError(ErrorCode.INVALID_PARTITIONS, 'Number of partitions must be larger than 0.');
  if (replicationFactor <= 0) throw new KafkaError(ErrorCode.INVALID_REPLICATION_FACTOR, 'Replication factor must be larger than 0.');
  if (replicationFactor > brokers.length) {
    throw new KafkaError(
      ErrorCode.INVALID_REPLICATION_FACTOR,
      `Replication factor: ${replicationFactor} larger than available brokers: ${brokers.length}.`,
    );
  }
  checkIndex('fixedStartIndex', options.fixedStartIndex);
  checkIndex('startPartitionId', options.startPartitionId);
  const sorted = [...brokers].sort((a, b) => a.id - b.id);
  const withRack = options.ignoreRacks === true ? 0 : sorted.filter((b) => b.rack !== null).length;
  if (withRack === 0)
    return assignRackUnaware(
      sorted.map((b) => b.id),
      partitions,
      replicationFactor,
      options,
    );
  if (withRack < sorted.length) {
    throw new KafkaError(ErrorCode.INVALID_REPLICA_ASSIGNMENT, 'Not all brokers have rack information for replica rack aware assignment.');
  }
  return assignRackAware(new Map(sorted.map((b) => [b.id, b.rack!])), partitions, replicationFactor, options);
}

/**
 * Replica lists for `added` partitions appended to a topic whose partitions hold `existing`
 * (replica lists by partition id, from 0): as many replicas each as partition 0 has, the walk
 * starting at the first broker whose id is at least partition 0's preferred leader (or the
 * first broker), as Kafka's `AdminZkClient.createPartitions` does, so the new partitions carry
 * on the old ones' round-robin rather than starting it again at a random broker.
 */
export function assignReplicasForNewPartitions(
  brokers: readonly BrokerPlacement[],
  existing: readonly (readonly number[])[],
  added: number,
  options: Pick<AssignmentOptions, 'ignoreRacks'> = {},
): Map<number, number[]> {
  const partition0 = existing[0];
  if (partition0 === undefined || partition0.length === 0)
    throw new RangeError('a topic has at least partition 0, with at least one replica');
  const ids = brokers.map((b) => b.id).sort((a, b) => a - b);
  const startIndex = Math.max(
    0,
    ids.findIndex((id) => id >= partition0[0]!),
  );
  return assignReplicas(brokers, added, partition0.length, { ...options, fixedStartIndex: startIndex, startPartitionId: existing.length });
}

/** Kafka passes -1 for "none"; here absence says that, so a negative value is a caller's slip. */
function checkIndex(name: string, value: number | undefined): void {
  if (value !== undefined && !(Number.isInteger(value) && value >= 0))
    throw new RangeError(`${name} must be a non-negative integer, not ${value}`);
}

/** Kafka's `Random.nextInt(bound)` on a [0, 1) source. */
function randomIndex(random: () => number, bound: number): number {
  return Math.floor(random() * bound);
}

/**
 * The walk both placements share: partition p's first replica is broker (p + start) mod n, and
 * the follower shift grows by one each time the partition ids complete a round of the brokers.
 */
function walk(
  brokerCount: number,
  partitions: number,
  options: AssignmentOptions,
  replicasFor: (firstIndex: number, shift: number) => number[],
): Map<number, number[]> {
  let start: number;
  let shift: number;
  if (options.fixedStartIndex !== undefined) {
    start = shift = options.fixedStartIndex;
  } else {
    // Two draws, start first, as Kafka makes them.
    const random = options.random ?? Math.random;
    start = randomIndex(random, brokerCount);
    shift = randomIndex(random, brokerCount);
  }
  const assignment = new Map<number, number[]>();
  const first = options.startPartitionId ?? 0;
  for (let partition = first; partition < first + partitions; partition++) {
    if (partition > 0 && partition % brokerCount === 0) shift += 1;
    assignment.set(partition, replicasFor((partition + start) % brokerCount, shift));
  }
  return assignment;
}

/** The index of follower `replica` of the replica at `firstIndex`: never the first itself, so the step is 1 to n-1. */
function followerIndex(firstIndex: number, shift: number, replica: number, brokerCount: number): number {
  return (firstIndex + 1 + ((shift + replica) % (brokerCount - 1))) % brokerCount;
}

function assignRackUnaware(
  ids: readonly number[],
  partitions: number,
  replicationFactor: number,
  options: AssignmentOptions,
): Map<number, number[]> {
  const n = ids.length;
  return walk(n, partitions, options, (firstIndex, shift) => {
    const replicas = [ids[firstIndex]!];
    for (let j = 0; j < replicationFactor - 1; j++) replicas.push(ids[followerIndex(firstIndex, shift, j, n)]!);
    return replicas;
  });
}

/**
 * The brokers one rack after another, racks in name order and each rack's brokers in id order,
 * e.g. rack1: 0, 1; rack2: 2, 3; rack3: 4 gives 0, 2, 4, 1, 3: a round-robin over it spreads any
 * run of consecutive brokers over as many racks as it can.
 */
function rackAlternated(rackOf: ReadonlyMap<number, string>): number[] {
  const byRack = new Map<string, number[]>();
  for (const [id, rack] of rackOf) byRack.set(rack, [...(byRack.get(rack) ?? []), id]);
  const queues = [...byRack.keys()].sort().map((rack) => byRack.get(rack)!.sort((a, b) => a - b));
  const out: number[] = [];
  for (let round = 0; out.length < rackOf.size; round++) {
    for (const queue of queues) if (round < queue.length) out.push(queue[round]!);
  }
  return out;
}

function assignRackAware(
  rackOf: ReadonlyMap<number, string>,
  partitions: number,
  replicationFactor: number,
  options: AssignmentOptions,
): Map<number, number[]> {
  const arranged = rackAlternated(rackOf);
  const n = arranged.length;
  const rackCount = new Set(rackOf.values()).size;
  return walk(n, partitions, options, (firstIndex, shift) => {
    const leader = arranged[firstIndex]!;
    const replicas = [leader];
    const racksUsed = new Set([rackOf.get(leader)!]);
    const brokersUsed = new Set([leader]);
    // Kafka scales the shift by the rack count, so that shifting moves followers by whole rounds
    // of the rack-alternated list. A rack may take a second replica only once every rack has
    // one; the factor is at most the broker count, so a broker never has to take a second.
    for (let k = 0; replicas.length < replicationFactor; k++) {
      const broker = arranged[followerIndex(firstIndex, shift * rackCount, k, n)]!;
      const rack = rackOf.get(broker)!;
      if (brokersUsed.has(broker) || (racksUsed.has(rack) && racksUsed.size < rackCount)) continue;
      replicas.push(broker);
      racksUsed.add(rack);
      brokersUsed.add(broker);
    }
    return replicas;
  });
}
