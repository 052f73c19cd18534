/**
 * AddPartitionsToTxn (key 24). Up to v3 a producer adds the partitions it is about to write to
 * its transaction; v4+ batches several transactions and is what partition leaders send to verify
 * (`verifyOnly`, KIP-890 part 1) or, for a producer on transaction version 2 that sends none itself,
 * to add a partition on its behalf (KIP-890 part 2). As in Kafka, when a transaction names a
 * partition that does not exist, that partition answers UNKNOWN_TOPIC_OR_PARTITION and the others
 * OPERATION_NOT_ATTEMPTED.
 */
import { kafkaErrorCode } from '@sluice/protocol/common/kafka-error.js';
import { FIRST_PRODUCER_FENCED_VERSION, fencingErrorFor } from './producer-fenced.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import {
  AddPartitionsToTxnRequest,
  AddPartitionsToTxnResponse,
  type AddPartitionsToTxnRequestAddPartitionsToTxnTransaction,
} from '@sluice/protocol/messages/index.js';
import { AclOperation, authorized, authorizedNames, authorizedOnCluster, ResourceType } from './authorization.js';
import { clusterOf, type ClusterContext } from './cluster-context.js';
import { defineHandler } from './handler.js';
import { lookupPartition } from './partition-lookup.js';
import { allFailed, answersByTopic, flattenTopics, type PartitionErrorRef } from './txn-partitions.js';

const BATCHED_VERSION = 4;
/** The producer of a broker's non-verifying add runs transaction version 2; a client's own add is legacy. */
const TV2 = 2;
const LEGACY_TV = 0;

async function addToTransaction(
  c: ClusterContext,
  t: AddPartitionsToTxnRequestAddPartitionsToTxnTransaction,
  fromBroker: boolean,
  mayWrite: (topic: string) => boolean,
): Promise<PartitionErrorRef[]> {
  const refs = flattenTopics(
    t.topics,
    (topic) => topic.name,
    (topic) => topic.partitions,
  );
  // As Kafka: a topic the producer may not WRITE fails its partitions, the others are not attempted.
  const denied = new Set(refs.filter((r) => !mayWrite(r.topic)));
  if (denied.size > 0)
    return refs.map((r) => ({ ...r, errorCode: denied.has(r) ? ErrorCode.TOPIC_AUTHORIZATION_FAILED : ErrorCode.OPERATION_NOT_ATTEMPTED }));
  const unknown = new Set(refs.filter((r) => !lookupPartition(c, r.topic, r.partition).ok));
  if (unknown.size > 0)
    return refs.map((r) => ({
      ...r,
      errorCode: unknown.has(r) ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION : ErrorCode.OPERATION_NOT_ATTEMPTED,
    }));
  try {
    return await c.transactions.addPartitions({
      transactionalId: t.transactionalId,
      producerId: t.producerId,
      producerEpoch: t.producerEpoch,
      partitions: refs,
      verifyOnly: t.verifyOnly,
      clientTransactionVersion: fromBroker && !t.verifyOnly ? TV2 : LEGACY_TV,
    });
  } catch (err) {
    return allFailed(refs, kafkaErrorCode(err));
  }
}

export const addPartitionsToTxnHandler = defineHandler({
  request: AddPartitionsToTxnRequest,
  response: AddPartitionsToTxnResponse,
  async handle(request, ctx) {
    const c = clusterOf(ctx);
    if (ctx.header.requestApiVersion >= BATCHED_VERSION) {
      // Brokers send the batched version (verification, KIP-890): they need CLUSTER_ACTION.
      if (!authorizedOnCluster(ctx, AclOperation.CLUSTER_ACTION))
        return { throttleTimeMs: 0, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, resultsByTransaction: [] };
      const resultsByTransaction = await Promise.all(
        request.transactions.map(async (t) => ({
          transactionalId: t.transactionalId,
          topicResults: toTopicResults(await addToTransaction(c, t, true, () => true)),
        })),
      );
      return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, resultsByTransaction };
    }
    const transactionalId = request.v3AndBelowTransactionalId;
    if (!authorized(ctx, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, transactionalId)) {
      const refs = flattenTopics(
        request.v3AndBelowTopics,
        (topic) => topic.name,
        (topic) => topic.partitions,
      );
      return {
        throttleTimeMs: 0,
        resultsByTopicV3AndBelow: toTopicResults(allFailed(refs, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED)),
      };
    }
    const results = await addToTransaction(
      c,
      {
        transactionalId: request.v3AndBelowTransactionalId,
        producerId: request.v3AndBelowProducerId,
        producerEpoch: request.v3AndBelowProducerEpoch,
        verifyOnly: false,
        topics: request.v3AndBelowTopics,
      },
      false,
      authorizedNames(ctx, AclOperation.WRITE, ResourceType.TOPIC),
    );
    const version = ctx.header.requestApiVersion;
    const understood = results.map((r) => ({
      ...r,
      errorCode: fencingErrorFor(r.errorCode, version, FIRST_PRODUCER_FENCED_VERSION.addPartitionsToTxn),
    }));
    return { throttleTimeMs: 0, resultsByTopicV3AndBelow: toTopicResults(understood) };
  },
});

function toTopicResults(
  results: readonly PartitionErrorRef[],
): Array<{ name: string; resultsByPartition: Array<{ partitionIndex: number; partitionErrorCode: number }> }> {
  return answersByTopic(results).map((t) => ({
    name: t.name,
    resultsByPartition: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, partitionErrorCode: p.errorCode })),
  }));
}
