/** The partition-worker options the router tests start real workers with (node 1, no cleaner). */
import { leaderEpochOf, offsetOf } from '@sluice/protocol/common/offsets.js';
import type { PartitionWorkerOptions, ReadCommand } from '../../../src/partitions/partition-protocol.js';

export const PARTITION_OPS_MODULE = new URL('../../../src/partitions/partition-ops.js', import.meta.url);

export function testWorkerOptions(logDirs: readonly string[], overrides: Partial<PartitionWorkerOptions> = {}): PartitionWorkerOptions {
  return {
    logDirs,
    cleanShutdownDirs: [],
    nodeId: 1,
    clusterId: 'c1uSTeR1dAAAAAAAAAAAAA',
    maintenanceIntervalMs: 1000,
    cleanerThreads: 0,
    replicaLagTimeMaxMs: 30_000,
    producerIdExpirationMs: 86_400_000,
    producerIdExpirationCheckIntervalMs: 600_000,
    logDirMoveBytesPerSecond: Number.MAX_SAFE_INTEGER,
    ...overrides,
  };
}

/** A read of up to 1 MiB from `fetchOffset` with no epoch check: a consumer's (replica id -1) unless `replicaId` names a follower. */
export function readCommand(
  topic: string,
  partition: number,
  fetchOffset: bigint | number,
  replicaId = -1,
  lastFetchedEpoch = -1,
): ReadCommand {
  return {
    topic,
    partition,
    currentLeaderEpoch: leaderEpochOf(-1),
    fetchOffset: offsetOf(fetchOffset),
    maxBytes: 1 << 20,
    readCommitted: false,
    minOneMessage: true,
    replicaId,
    lastFetchedEpoch: leaderEpochOf(lastFetchedEpoch),
  };
}
