/**
 * The bodies of the controller's requests to brokers (Kafka's `ControllerBrokerRequestBatch`):
 * LeaderAndIsr for the partitions a broker hosts, UpdateMetadata for everyone's metadata cache,
 * StopReplica for replicas a broker must stop (and delete, for topic deletion). Pure: the
 * controller passes its context and the partitions concerned.
 */
import {
  LeaderAndIsrRequest,
  LeaderAndIsrResponse,
  StopReplicaRequest,
  StopReplicaResponse,
  UpdateMetadataRequest,
  UpdateMetadataResponse,
  type LeaderAndIsrRequestDataInput,
  type LeaderAndIsrRequestLeaderAndIsrTopicStateInput,
  type StopReplicaRequestStopReplicaTopicStateInput,
  type UpdateMetadataRequestUpdateMetadataTopicStateInput,
} from '@sluice/protocol/messages/index.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import type { KafkaConnection } from '@sluice/client/connection.js';
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { groupBy } from '@sluice/protocol/common/group-by.js';
import { SECURITY_PROTOCOL_IDS, type SecurityProtocol } from '../../common/session.js';
import { endpointOf, type ControllerContext } from './controller-context.js';
import type { ControllerRequest } from './controller-channel.js';
import type { TopicPartition } from '@sluice/protocol/common/topic-partition.js';

/** Kafka's `LeaderAndIsr.LeaderDuringDelete`: UpdateMetadata names partitions being deleted with it. */
export const LEADER_DURING_DELETE = -2;

export interface ControllerIdentity {
  readonly controllerId: number;
  readonly controllerEpoch: number;
}

/** Each topic's entries, partitions with nothing to say left out. */
function byTopic<T>(partitions: readonly TopicPartition[], entry: (p: TopicPartition) => T | null): Map<string, T[]> {
  const entries = partitions.flatMap((p) => {
    const e = entry(p);
    return e === null ? [] : [{ topic: p.topic, e }];
  });
  return groupBy(
    entries,
    (x) => x.topic,
    (x) => x.e,
  );
}

/**
 * A response's error: a stale controller epoch means a newer controller exists, and retrying
 * would not help, so it is answered to the channel, which logs it; anything else is retried.
 */
function checkTopLevel(api: string, errorCode: number): number {
  if (errorCode === ErrorCode.NONE || errorCode === ErrorCode.STALE_CONTROLLER_EPOCH) return errorCode;
  throw new KafkaError(errorCode, `${api} answered error ${errorCode}`);
}

/**
 * `onStorageErrors` hears of the partitions the broker answered KAFKA_STORAGE_ERROR for: their
 * log dir failed there (Kafka's `handleLeaderAndIsrResponse`).
 */
export function leaderAndIsr(
  ctx: ControllerContext,
  id: ControllerIdentity,
  brokerId: number,
  partitions: readonly TopicPartition[],
  isNew: boolean,
  onStorageErrors: (partitions: TopicPartition[]) => void,
): ControllerRequest {
  const states = byTopic(partitions, ({ topic, partition }) => {
    const l = ctx.leadership(topic, partition);
    if (l === undefined) return null;
    return {
      partitionIndex: partition,
      controllerEpoch: l.controllerEpoch,
      leader: l.leader,
      leaderEpoch: l.leaderEpoch,
      isr: [...l.isr],
      partitionEpoch: l.zkVersion,
      replicas: [...ctx.replicas(topic, partition)],
      addingReplicas: [],
      removingReplicas: [],
      isNew,
    };
  });
  const leaders = new Set<number>();
  const topicStates: LeaderAndIsrRequestLeaderAndIsrTopicStateInput[] = [];
  for (const [topic, partitionStates] of states) {
    topicStates.push({ topicName: topic, topicId: ctx.topics.get(topic)!.topicId, partitionStates });
    for (const s of partitionStates) if (s.leader >= 0) leaders.add(s.leader);
  }
  const brokerEpoch = ctx.brokers.get(brokerId)?.epoch ?? -1n;
  const body: LeaderAndIsrRequestDataInput = {
    controllerId: id.controllerId,
    controllerEpoch: id.controllerEpoch,
    brokerEpoch,
    topicStates,
    liveLeaders: [...leaders].flatMap((l) => {
      const b = ctx.brokers.get(l);
      if (b === undefined) return [];
      const { host, port } = endpointOf(b, ctx.interBrokerListenerName);
      return [{ brokerId: l, hostName: host, port }];
    }),
  };
  return async (connection: KafkaConnection) => {
    const response = await connection.request(LeaderAndIsrRequest, LeaderAndIsrResponse, () => body);
    const code = checkTopLevel('LeaderAndIsr', response.errorCode);
    if (code !== ErrorCode.NONE) return code;
    // v5 on names topics by id, older versions by name.
    const names = new Map(topicStates.map((t) => [t.topicId, t.topicName]));
    const answered = [
      ...response.partitionErrors,
      ...response.topics.flatMap((t) => t.partitionErrors.map((e) => ({ ...e, topicName: names.get(t.topicId) ?? e.topicName }))),
    ];
    const failed = answered
      .filter((e) => e.errorCode === ErrorCode.KAFKA_STORAGE_ERROR)
      .map((e) => ({ topic: e.topicName, partition: e.partitionIndex }));
    if (failed.length > 0) onStorageErrors(failed);
    return code;
  };
}

export function updateMetadata(
  ctx: ControllerContext,
  id: ControllerIdentity,
  brokerId: number,
  partitions: readonly TopicPartition[],
  deleting: ReadonlySet<string>,
): ControllerRequest {
  const states = byTopic(partitions, ({ topic, partition }) => {
    const l = ctx.leadership(topic, partition);
    const replicas = ctx.replicas(topic, partition);
    const deleted = deleting.has(topic);
    if (l === undefined && !deleted) return null;
    return {
      partitionIndex: partition,
      controllerEpoch: l?.controllerEpoch ?? id.controllerEpoch,
      leader: deleted ? LEADER_DURING_DELETE : l!.leader,
      leaderEpoch: l?.leaderEpoch ?? 0,
      isr: [...(l?.isr ?? [])],
      zkVersion: l?.zkVersion ?? 0,
      replicas: [...replicas],
      offlineReplicas: replicas.filter((r) => !ctx.isRegistered(r) || ctx.isOnOfflineDir(r, topic, partition)),
    };
  });
  const topicStates: UpdateMetadataRequestUpdateMetadataTopicStateInput[] = [...states].map(([topic, partitionStates]) => ({
    topicName: topic,
    topicId: ctx.topics.get(topic)?.topicId,
    partitionStates,
  }));
  const body = {
    controllerId: id.controllerId,
    controllerEpoch: id.controllerEpoch,
    brokerEpoch: ctx.brokers.get(brokerId)?.epoch ?? -1n,
    topicStates,
    liveBrokers: [...ctx.brokers.values()].map((b) => ({
      id: b.id,
      endpoints: b.endpoints.map((e) => ({
        port: e.port,
        host: e.host,
        listener: e.listenerName,
        securityProtocol: SECURITY_PROTOCOL_IDS[e.securityProtocol as SecurityProtocol] ?? -1,
      })),
      rack: b.rack,
    })),
  };
  return async (connection: KafkaConnection) => {
    const response = await connection.request(UpdateMetadataRequest, UpdateMetadataResponse, () => body);
    return checkTopLevel('UpdateMetadata', response.errorCode);
  };
}

export function stopReplica(
  ctx: ControllerContext,
  id: ControllerIdentity,
  brokerId: number,
  partitions: readonly TopicPartition[],
  deletePartition: boolean,
): ControllerRequest {
  const states = byTopic(partitions, ({ topic, partition }) => ({
    partitionIndex: partition,
    // Deletion is final whatever the epoch; a stop without deletion names the epoch it ends.
    leaderEpoch: deletePartition ? LEADER_DURING_DELETE : (ctx.leadership(topic, partition)?.leaderEpoch ?? -1),
    deletePartition,
  }));
  const topicStates: StopReplicaRequestStopReplicaTopicStateInput[] = [...states].map(([topic, partitionStates]) => ({
    topicName: topic,
    partitionStates,
  }));
  const body = {
    controllerId: id.controllerId,
    controllerEpoch: id.controllerEpoch,
    brokerEpoch: ctx.brokers.get(brokerId)?.epoch ?? -1n,
    topicStates,
  };
  return async (connection: KafkaConnection) => {
    const response = await connection.request(StopReplicaRequest, StopReplicaResponse, () => body);
    return checkTopLevel('StopReplica', response.errorCode);
  };
}
