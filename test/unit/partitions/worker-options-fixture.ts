/** The partition-worker options the router tests start real workers with (node 1, no cleaner). */
import type { PartitionWorkerOptions } from '../../../src/partitions/partition-protocol.js';

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
