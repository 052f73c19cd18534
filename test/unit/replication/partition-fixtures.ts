/** Shared fixtures of the replica object's tests: a `Partition` over a real log in a temporary dir, and the Kafka error code a call throws. */
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { Partition, type PartitionOptions } from '../../../src/replication/partition.js';
import { FakeClock, openLog, tempDir } from '../storage/storage-fixtures.js';
import type { PartitionStateCommand } from '../../../src/replication/partition-state.js';

export interface HostedPartition {
  readonly partition: Partition;
  readonly clock: FakeClock;
  remove(): void;
}

/** `localId`'s replica of a fresh partition, in the controller's `state`, on a settable clock. */
export function hostPartition(
  localId: number,
  state: PartitionStateCommand,
  config: Record<string, string> = {},
  options: Omit<PartitionOptions, 'clock'> = {},
): HostedPartition {
  const dir = tempDir('replica');
  const clock = new FakeClock();
  const partition = new Partition(openLog(dir.path, clock), localId, { ...options, clock: clock.now });
  partition.applyState(state, config);
  return {
    partition,
    clock,
    remove: () => {
      partition.log.close();
      dir.remove();
    },
  };
}

/** The Kafka error code `fn` throws, NONE when it returns. */
export function codeOf(fn: () => unknown): number {
  try {
    fn();
  } catch (err) {
    if (err instanceof KafkaError) return err.code;
    throw err;
  }
  return ErrorCode.NONE;
}
