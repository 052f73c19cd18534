/**
 * TxnOffsetCommit (key 28): offsets committed inside a transaction (`sendOffsetsToTransaction`).
 * The group coordinator writes them to the group's `__consumer_offsets` partition as the
 * producer's transactional records and holds them pending until the transaction's marker lands
 * there: a commit applies them, an abort drops them. Topics and partitions the cluster does not
 * have are refused here first, as for OffsetCommit (by id from v6). The group's partition must be
 * in the transaction: the coordinator verifies it (KIP-890), or from v5, where a producer on
 * transaction version 2 sends no AddOffsetsToTxn, adds it.
 */
import { ErrorCode } from '@sluice/protocol/errors.js';
import { kafkaErrorCode } from '@sluice/protocol/common/kafka-error.js';
import { CONSUMER_OFFSETS_TOPIC } from '@sluice/protocol/internal-topics.js';
import { TxnOffsetCommitRequest, TxnOffsetCommitResponse } from '@sluice/protocol/messages/index.js';
import { AclOperation, authorized, authorizedNames, ResourceType } from './authorization.js';
import { clusterOf } from './cluster-context.js';
import { defineHandler } from './handler.js';
import { commitAnswer, commitFailed, splitCommitTopics, type CommitTopicAnswer } from './offset-topics.js';
import { txnOffsetCommitSupport, verifyTransactionalPartitions } from './txn-verification.js';

const FIRST_VERSION_WITH_TOPIC_IDS = 6;

export const txnOffsetCommitHandler = defineHandler({
  request: TxnOffsetCommitRequest,
  response: TxnOffsetCommitResponse,
  async handle(request, ctx) {
    const c = clusterOf(ctx);
    const version = ctx.header.requestApiVersion;
    const byId = version >= FIRST_VERSION_WITH_TOPIC_IDS;
    // As Kafka: WRITE on the transactional id, then READ on the group, then READ on each topic.
    if (!authorized(ctx, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, request.transactionalId)) {
      return { throttleTimeMs: 0, topics: commitFailed(request.topics, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED) };
    }
    if (!authorized(ctx, AclOperation.READ, ResourceType.GROUP, request.groupId))
      return { throttleTimeMs: 0, topics: commitFailed(request.topics, ErrorCode.GROUP_AUTHORIZATION_FAILED) };
    const { known, refused } = splitCommitTopics(
      c.metadata,
      request.topics,
      byId,
      authorizedNames(ctx, AclOperation.READ, ResourceType.TOPIC),
    );
    if (known.length === 0) return { throttleTimeMs: 0, topics: commitAnswer(refused, [], byId) };
    const offsetsPartition = { topic: CONSUMER_OFFSETS_TOPIC, partition: c.groups.partitionOf(request.groupId) };
    const producer = { transactionalId: request.transactionalId, producerId: request.producerId, producerEpoch: request.producerEpoch };
    const refusal = (await verifyTransactionalPartitions(c, producer, [offsetsPartition], txnOffsetCommitSupport(version))).get(
      offsetsPartition,
    );
    let stored: CommitTopicAnswer[];
    try {
      stored =
        refusal !== undefined
          ? commitFailed(known, refusal)
          : ((await c.groups.commitTransactionalOffsets({ ...request, topics: known }, version)).topics ?? []);
    } catch (err) {
      stored = commitFailed(known, kafkaErrorCode(err));
    }
    return { throttleTimeMs: 0, topics: commitAnswer(refused, stored, byId) };
  },
});
