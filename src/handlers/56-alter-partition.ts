/**
 * AlterPartition (key 56): a partition leader asks the controller to change its ISR (a follower
 * fell behind or caught up). Served by the active controller, which checks the leader and
 * partition epochs; any other broker answers NOT_CONTROLLER. Kafka 4.4 defines versions 2–3,
 * which name topics by id; version 3 carries each new ISR member's broker epoch.
 */
import { ErrorCode } from '@sluice/protocol/errors.js';
import {
  AlterPartitionRequest,
  AlterPartitionResponse,
  type AlterPartitionResponseDataInput,
  type AlterPartitionResponsePartitionDataInput,
} from '@sluice/protocol/messages/index.js';
import type { IsrChangeRequest } from '../metadata/replica-control.js';
import { AclOperation, authorizedOnCluster } from './authorization.js';
import { clusterOf, membershipOf } from './cluster-context.js';
import { defineHandler } from './handler.js';

export const alterPartitionHandler = defineHandler({
  request: AlterPartitionRequest,
  response: AlterPartitionResponse,
  async handle(request, ctx): Promise<AlterPartitionResponseDataInput> {
    const c = clusterOf(ctx);
    if (!authorizedOnCluster(ctx, AclOperation.CLUSTER_ACTION)) return { errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, topics: [] };
    const member = membershipOf(c);
    const items: IsrChangeRequest[] = [];
    const unknown: { topicId: string; partitionIndex: number }[] = [];
    for (const t of request.topics) {
      const name = c.metadata.topicById(t.topicId)?.name;
      for (const p of t.partitions) {
        if (name === undefined) {
          unknown.push({ topicId: t.topicId, partitionIndex: p.partitionIndex });
          continue;
        }
        const newIsr = ctx.header.requestApiVersion >= 3 ? p.newIsrWithEpochs.map((b) => b.brokerId) : p.newIsr;
        items.push({ topic: name, partition: p.partitionIndex, leaderEpoch: p.leaderEpoch, partitionEpoch: p.partitionEpoch, newIsr });
      }
    }
    const answer = await member.controller.alterPartition(request.brokerId, request.brokerEpoch, items);
    const topics = new Map<string, AlterPartitionResponsePartitionDataInput[]>();
    const partitionsOf = (topicId: string): AlterPartitionResponsePartitionDataInput[] => {
      let list = topics.get(topicId);
      if (list === undefined) topics.set(topicId, (list = []));
      return list;
    };
    for (const a of answer.partitions) {
      partitionsOf(c.metadata.topic(a.topic)?.topicId ?? '').push({
        partitionIndex: a.partition,
        errorCode: a.errorCode,
        leaderId: a.leader,
        leaderEpoch: a.leaderEpoch,
        isr: [...a.newIsr],
        partitionEpoch: a.partitionEpoch,
      });
    }
    for (const u of unknown) {
      partitionsOf(u.topicId).push({
        partitionIndex: u.partitionIndex,
        errorCode: ErrorCode.UNKNOWN_TOPIC_ID,
        leaderId: -1,
        leaderEpoch: -1,
        isr: [],
        partitionEpoch: -1,
      });
    }
    return {
      errorCode: answer.errorCode,
      topics: [...topics].map(([topicId, partitions]) => ({ topicId, partitions })),
    };
  },
});
