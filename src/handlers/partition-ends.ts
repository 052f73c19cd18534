/**
 * The group coordinator's view of partitions' high watermarks (Kafka's PartitionMetadataClient):
 * a partition this broker leads answers from its log, one led elsewhere is asked of its leader
 * over the member's inter-broker connection (ListOffsets LATEST, read_uncommitted).
 */
import { groupBy } from '@sluice/protocol/common/group-by.js';
import type { PartitionEnd, PartitionEnds } from '../coordinator/group/share/share-group-service.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { LATEST_TIMESTAMP } from '@sluice/protocol/offset-requests.js';
import { NO_EPOCH_CHECK, wireOffset } from '@sluice/protocol/common/offsets.js';
import type { ClusterContext } from './cluster-context.js';

const NO_OFFSET = -1n;

export function partitionEnds(c: ClusterContext): PartitionEnds {
  return async (partitions) => {
    const answers: PartitionEnd[] = partitions.map(() => ({ errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, offset: NO_OFFSET }));
    const remote: Array<{ leader: number; index: number }> = [];
    const local: number[] = [];
    partitions.forEach((p, index) => {
      const registration = c.metadata.partition(p.topic, p.partition);
      if (registration === undefined) return;
      if (registration.leader < 0) answers[index] = { errorCode: ErrorCode.LEADER_NOT_AVAILABLE, offset: NO_OFFSET };
      else if (registration.leader === c.nodeId || c.membership === null) local.push(index);
      else remote.push({ leader: registration.leader, index });
    });
    const peers = c.membership?.partitionEnds;
    await Promise.all([
      ...local.map(async (index) => {
        const reply = await c.partitions.listOffset(partitions[index]!, NO_EPOCH_CHECK, LATEST_TIMESTAMP);
        answers[index] = { errorCode: reply.errorCode, offset: wireOffset(reply.offset) };
      }),
      ...[
        ...groupBy(
          remote,
          (r) => r.leader,
          (r) => r.index,
        ),
      ].map(async ([leader, indexes]) => {
        const replies = await peers!.latestOffsets(
          leader,
          indexes.map((i) => partitions[i]!),
        );
        indexes.forEach((i, k) => (answers[i] = replies[k]!));
      }),
    ]);
    return answers;
  };
}
