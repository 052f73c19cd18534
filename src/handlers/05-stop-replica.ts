/**
 * StopReplica (key 5, Kafka's ZooKeeper-era inter-broker API): the controller tells this broker
 * to stop following (or leading) partitions, deleting their logs when the topic is deleted.
 * Served only on cluster members. Versions 0–2 name the partitions without epochs.
 */
import { ErrorCode } from '@sluice/protocol/errors.js';
import { StopReplicaRequest, StopReplicaResponse, type StopReplicaResponseDataInput } from '@sluice/protocol/messages/index.js';
import type { StopReplicaPartition } from '../metadata/replica-control.js';
import { AclOperation, authorizedOnCluster } from './authorization.js';
import { clusterOf, membershipOf } from './cluster-context.js';
import { defineHandler } from './handler.js';

const NO_EPOCH = -1;

export const stopReplicaHandler = defineHandler({
  request: StopReplicaRequest,
  response: StopReplicaResponse,
  async handle(request, ctx): Promise<StopReplicaResponseDataInput> {
    if (!authorizedOnCluster(ctx, AclOperation.CLUSTER_ACTION))
      return { errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, partitionErrors: [] };
    const member = membershipOf(clusterOf(ctx));
    const version = ctx.header.requestApiVersion;
    let partitions: StopReplicaPartition[];
    if (version >= 3) {
      partitions = request.topicStates.flatMap((t) =>
        t.partitionStates.map((p) => ({
          topic: t.topicName,
          partition: p.partitionIndex,
          leaderEpoch: p.leaderEpoch,
          deletePartition: p.deletePartition,
        })),
      );
    } else if (version >= 1) {
      partitions = request.topics.flatMap((t) =>
        t.partitionIndexes.map((partition) => ({
          topic: t.name,
          partition,
          leaderEpoch: NO_EPOCH,
          deletePartition: request.deletePartitions,
        })),
      );
    } else {
      partitions = request.ungroupedPartitions.map((p) => ({
        topic: p.topicName,
        partition: p.partitionIndex,
        leaderEpoch: NO_EPOCH,
        deletePartition: request.deletePartitions,
      }));
    }
    const answer = await member.replicas.stopReplica(
      { controllerId: request.controllerId, controllerEpoch: request.controllerEpoch, brokerEpoch: request.brokerEpoch },
      partitions,
    );
    return {
      errorCode: answer.errorCode,
      partitionErrors: answer.partitionErrors.map((e) => ({ topicName: e.topic, partitionIndex: e.partition, errorCode: e.errorCode })),
    };
  },
});
