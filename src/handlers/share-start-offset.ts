/**
 * `share.auto.offset.reset` for a share partition whose persisted start offset is unset (-1), as
 * Kafka resolves it: `latest` is the log's end for the group's isolation level (high watermark or
 * last stable offset), `earliest` the log start, `by_duration:<d>` the first record at or after
 * now - d (the end when there is none).
 */
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { EARLIEST_TIMESTAMP, LATEST_TIMESTAMP } from '@sluice/protocol/offset-requests.js';
import { NO_EPOCH_CHECK, wireOffset } from '@sluice/protocol/common/offsets.js';
import type { SharePartitionConfig } from '../coordinator/share/partition/share-partition-config.js';
import type { StartOffsetResolver } from '../coordinator/share/partition/share-partition.js';
import type { ClusterContext } from './cluster-context.js';

/** The partition's log start offset, or null when the partition cannot answer it. */
export async function logStartOf(c: ClusterContext, topic: string, partition: number): Promise<bigint | null> {
  const reply = await c.partitions.listOffset({ topic, partition }, NO_EPOCH_CHECK, EARLIEST_TIMESTAMP);
  return reply.errorCode === ErrorCode.NONE ? wireOffset(reply.offset) : null;
}

export function startOffsetResolver(
  c: ClusterContext,
  topic: string,
  partition: number,
  config: SharePartitionConfig,
): StartOffsetResolver {
  const lookup = async (timestamp: bigint): Promise<bigint> => {
    const reply = await c.partitions.listOffset({ topic, partition }, NO_EPOCH_CHECK, timestamp, config.readCommitted);
    if (reply.errorCode !== ErrorCode.NONE) throw new KafkaError(reply.errorCode, `no start offset for ${topic}-${partition}`);
    return wireOffset(reply.offset);
  };
  return async () => {
    const reset = config.autoOffsetReset;
    if (reset.kind === 'earliest') return lookup(EARLIEST_TIMESTAMP);
    if (reset.kind === 'latest') return lookup(LATEST_TIMESTAMP);
    const found = await lookup(BigInt(Date.now() - reset.durationMs));
    return found >= 0n ? found : lookup(LATEST_TIMESTAMP);
  };
}
