/**
 * LeaderAndIsr (key 4, Kafka's ZooKeeper-era inter-broker API): the controller tells this broker
 * its role for each partition it hosts — leader or follower, the leader epoch, replicas and ISR.
 * Served only on cluster members; the work is `ReplicaControl.leaderAndIsr`.
 */
import { ErrorCode } from '@sluice/protocol/errors.js';
import { groupBy } from '@sluice/protocol/common/group-by.js';
import { LeaderAndIsrRequest, LeaderAndIsrResponse, type LeaderAndIsrResponseDataInput } from '@sluice/protocol/messages/index.js';
import type { LeaderAndIsrPartition } from '../metadata/replica-control.js';
import { AclOperation, authorizedOnCluster } from './authorization.js';
import { clusterOf, membershipOf } from './cluster-context.js';
import { defineHandler } from './handler.js';
import { topicPartitionKey } from '@sluice/protocol/common/topic-partition.js';

export const leaderAndIsrHandler = defineHandler({
  request: LeaderAndIsrRequest,
  response: LeaderAndIsrResponse,
  async handle(request, ctx): Promise<LeaderAndIsrResponseDataInput> {
    if (!authorizedOnCluster(ctx, AclOperation.CLUSTER_ACTION))
      return { errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, partitionErrors: [], topics: [] };
    const member = membershipOf(clusterOf(ctx));
    const partitions: LeaderAndIsrPartition[] = request.topicStates.flatMap((t) =>
      t.partitionStates.map((p) => ({
        topic: t.topicName,
        topicId: t.topicId,
        partition: p.partitionIndex,
        leader: p.leader,
        leaderEpoch: p.leaderEpoch,
        isr: p.isr,
        partitionEpoch: p.partitionEpoch,
        replicas: p.replicas,
        isNew: p.isNew,
      })),
    );
    const answer = await member.replicas.leaderAndIsr(
      { controllerId: request.controllerId, controllerEpoch: request.controllerEpoch, brokerEpoch: request.brokerEpoch },
      partitions,
    );
    const errors = new Map(answer.partitionErrors.map((e) => [topicPartitionKey(e.topic, e.partition), e.errorCode]));
    const byTopic = groupBy(
      partitions,
      (p) => p.topicId,
      (p) => ({ partitionIndex: p.partition, errorCode: errors.get(topicPartitionKey(p.topic, p.partition)) ?? ErrorCode.NONE }),
    );
    if (ctx.header.requestApiVersion < 5) {
      return {
        errorCode: answer.errorCode,
        partitionErrors: partitions.map((p) => ({
          topicName: p.topic,
          partitionIndex: p.partition,
          errorCode: errors.get(topicPartitionKey(p.topic, p.partition)) ?? ErrorCode.NONE,
        })),
      };
    }
    return { errorCode: answer.errorCode, topics: [...byTopic].map(([topicId, partitionErrors]) => ({ topicId, partitionErrors })) };
  },
});
