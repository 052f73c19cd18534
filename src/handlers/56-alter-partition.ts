/**
 * AlterPartition (key 56): a partition leader asks the controller to change its ISR (a follower
 * fell behind or caught up). Served by the active controller, which checks the leader and
 * partition epochs; any other broker answers NOT_CONTROLLER. Versions 2+ name topics by id,
 * version 3 carries each new ISR member's broker epoch.
 */
import { ErrorCode } from '../protocol/errors.js';
import { AlterPartitionRequest, AlterPartitionResponse, type AlterPartitionResponseDataInput } from '../protocol/messages/index.js';
import type { IsrChangeRequest } from '../cluster/replica-control.js';
import { clusterOf, membershipOf } from './cluster-context.js';
import { defineHandler } from './handler.js';

export const alterPartitionHandler = defineHandler({
  request: AlterPartitionRequest,
  response: AlterPartitionResponse,
  async handle(request, ctx): Promise<AlterPartitionResponseDataInput> {
    const c = clusterOf(ctx);
    const member = membershipOf(c);
    const byId = ctx.header.requestApiVersion >= 2;
    const items: IsrChangeRequest[] = [];
    const unknown: { topicId: string; topicName: string; partitionIndex: number }[] = [];
    for (const t of request.topics) {
      const name = byId ? c.metadata.topicById(t.topicId)?.name : t.topicName;
      for (const p of t.partitions) {
        if (name === undefined) {
          unknown.push({ topicId: t.topicId, topicName: t.topicName, partitionIndex: p.partitionIndex });
          continue;
        }
        const newIsr = ctx.header.requestApiVersion >= 3 ? p.newIsrWithEpochs.map((b) => b.brokerId) : p.newIsr;
        items.push({ topic: name, partition: p.partitionIndex, leaderEpoch: p.leaderEpoch, partitionEpoch: p.partitionEpoch, newIsr });
      }
    }
    const answer = await member.controller.alterPartition(request.brokerId, request.brokerEpoch, items);
    const topics = new Map<string, { topicId: string; topicName: string; partitions: AlterPartitionResponseDataInput['topics'] extends (infer T)[] | undefined ? T extends { partitions?: infer P } ? NonNullable<P> : never : never }>();
    const topicOf = (topicName: string, topicId: string) => {
      let t = topics.get(topicName);
      if (t === undefined) topics.set(topicName, (t = { topicId, topicName, partitions: [] }));
      return t;
    };
    for (const a of answer.partitions) {
      topicOf(a.topic, c.metadata.topic(a.topic)?.topicId ?? '').partitions.push({
        partitionIndex: a.partition,
        errorCode: a.errorCode,
        leaderId: a.leader,
        leaderEpoch: a.leaderEpoch,
        isr: [...a.newIsr],
        partitionEpoch: a.partitionEpoch,
      });
    }
    for (const u of unknown) {
      topicOf(u.topicName || u.topicId, u.topicId).partitions.push({
        partitionIndex: u.partitionIndex,
        errorCode: byId ? ErrorCode.UNKNOWN_TOPIC_ID : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
        leaderId: -1,
        leaderEpoch: -1,
        isr: [],
        partitionEpoch: -1,
      });
    }
    return {
      errorCode: answer.errorCode,
      topics: [...topics.values()].map((t) => (byId ? { topicId: t.topicId, partitions: t.partitions } : { topicName: t.topicName, partitions: t.partitions })),
    };
  },
});
