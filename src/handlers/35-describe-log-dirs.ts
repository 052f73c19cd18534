/**
 * DescribeLogDirs (key 35): each log dir with its capacity and the size of the partitions it
 * holds, as the partition owners report them (`PartitionAdmin.describeLogDirs`). Null topics
 * means every partition; partitions this broker does not hold are left out, as Kafka does. A
 * partition moving between dirs (AlterReplicaLogDirs) also shows in its destination as the future
 * replica (`isFutureKey`, its offset lag to the current log's end). An offline dir is answered
 * KAFKA_STORAGE_ERROR with nothing else.
 */
import { ErrorCode } from '@sluice/protocol/errors.js';
import {
  DescribeLogDirsRequest,
  DescribeLogDirsResponse,
  type DescribeLogDirsResponseDataInput,
  type DescribeLogDirsResponseDescribeLogDirsTopicInput,
} from '@sluice/protocol/messages/index.js';
import type { PartitionLogDescription } from '../metadata/admin/partition-admin.js';
import { AclOperation, authorizedOnCluster } from './authorization.js';
import { defineHandler } from './handler.js';
import { clusterOf } from './cluster-context.js';

export const describeLogDirsHandler = defineHandler({
  request: DescribeLogDirsRequest,
  response: DescribeLogDirsResponse,
  async handle(request, ctx): Promise<DescribeLogDirsResponseDataInput> {
    const c = clusterOf(ctx);
    if (!authorizedOnCluster(ctx, AclOperation.DESCRIBE)) return { errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, results: [] };
    const wanted = request.topics === null ? null : new Map(request.topics.map((t) => [t.topic, new Set(t.partitions)] as const));
    const included = (p: PartitionLogDescription): boolean => wanted === null || wanted.get(p.topic)?.has(p.partition) === true;
    const dirs = await c.admin.partitions.describeLogDirs();
    return {
      errorCode: ErrorCode.NONE,
      results: dirs.map((dir) => {
        // Kafka answers an offline dir with its error alone: no partitions, sizes unknown.
        if (dir.errorCode !== ErrorCode.NONE)
          return { errorCode: dir.errorCode, logDir: dir.path, topics: [], totalBytes: -1n, usableBytes: -1n, isCordoned: false };
        const byTopic = new Map<string, DescribeLogDirsResponseDescribeLogDirsTopicInput>();
        for (const p of dir.partitions.filter(included)) {
          let topic = byTopic.get(p.topic);
          if (topic === undefined) byTopic.set(p.topic, (topic = { name: p.topic, partitions: [] }));
          topic.partitions!.push({
            partitionIndex: p.partition,
            partitionSize: p.sizeBytes,
            offsetLag: p.offsetLag,
            isFutureKey: p.isFuture,
          });
        }
        return {
          errorCode: dir.errorCode,
          logDir: dir.path,
          topics: [...byTopic.values()],
          totalBytes: dir.totalBytes,
          usableBytes: dir.usableBytes,
          isCordoned: false,
        };
      }),
    };
  },
});
