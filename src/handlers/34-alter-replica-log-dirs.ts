/**
 * AlterReplicaLogDirs (key 34): moves partitions between this broker's log dirs while they are
 * served (Kafka's `ReplicaManager.alterReplicaLogDirs`; the copy and swap run in the partitions'
 * workers, see storage/log/log-move.ts). Needs ALTER on the cluster. Each partition is answered:
 * LOG_DIR_NOT_FOUND for a path that is not one of `log.dirs`, KAFKA_STORAGE_ERROR for an offline
 * dir or partition, REPLICA_NOT_AVAILABLE for a partition of the cluster not hosted here (its dir is
 * remembered for when it is created), UNKNOWN_TOPIC_OR_PARTITION for one the cluster does not have
 * (Kafka's `getPartitionOrException` tells the two apart and only the first is answered
 * REPLICA_NOT_AVAILABLE for older clients), INVALID_TOPIC_EXCEPTION when the future directory name
 * would be too long.
 * A partition named under two paths moves to the last one, as Kafka's request map keeps it.
 */
import { ErrorCode } from '@sluice/protocol/errors.js';
import {
  AlterReplicaLogDirsRequest,
  AlterReplicaLogDirsResponse,
  type AlterReplicaLogDirsResponseAlterReplicaLogDirTopicResultInput,
  type AlterReplicaLogDirsResponseDataInput,
} from '@sluice/protocol/messages/index.js';
import type { LogDirMove } from '../metadata/admin/partition-admin.js';
import { AclOperation, authorizedOnCluster } from './authorization.js';
import { defineHandler } from './handler.js';
import { clusterOf } from './cluster-context.js';
import { topicPartitionKey } from '@sluice/protocol/common/topic-partition.js';

type TopicResult = AlterReplicaLogDirsResponseAlterReplicaLogDirTopicResultInput;

export const alterReplicaLogDirsHandler = defineHandler({
  request: AlterReplicaLogDirsRequest,
  response: AlterReplicaLogDirsResponse,
  async handle(request, ctx): Promise<AlterReplicaLogDirsResponseDataInput> {
    if (!authorizedOnCluster(ctx, AclOperation.ALTER)) {
      const refused = (partitions: readonly number[]): TopicResult['partitions'] =>
        partitions.map((partitionIndex) => ({ partitionIndex, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED }));
      return { results: request.dirs.flatMap((d) => d.topics.map((t) => ({ topicName: t.name, partitions: refused(t.partitions) }))) };
    }
    const byPartition = new Map<string, LogDirMove>();
    for (const dir of request.dirs) {
      for (const topic of dir.topics) {
        for (const partition of topic.partitions) {
          const key = topicPartitionKey(topic.name, partition);
          byPartition.delete(key);
          byPartition.set(key, { topic: topic.name, partition, path: dir.path });
        }
      }
    }
    const moves = [...byPartition.values()];
    const cluster = clusterOf(ctx);
    const errors = await cluster.admin.partitions.alterReplicaLogDirs(moves);
    const byTopic = new Map<string, TopicResult>();
    moves.forEach((move, i) => {
      let topic = byTopic.get(move.topic);
      if (topic === undefined) byTopic.set(move.topic, (topic = { topicName: move.topic, partitions: [] }));
      const unknown = errors[i] === ErrorCode.REPLICA_NOT_AVAILABLE && cluster.metadata.partition(move.topic, move.partition) === undefined;
      topic.partitions!.push({ partitionIndex: move.partition, errorCode: unknown ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION : errors[i]! });
    });
    return { results: [...byTopic.values()] };
  },
});
