/**
 * Setup for the differential scenarios, run alike on Sluice and on Apache Kafka: each waits
 * until the broker can serve what the scenario then compares, because Kafka answers retriable
 * errors for a while after a creation (a partition's leadership, a producer id block, a
 * coordinator's load) where Sluice is ready at once.
 */
import { ErrorCode } from '@sluice/protocol/errors.js';
import * as M from '@sluice/protocol/messages/index.js';
import { createTopic, until } from './offset-wire.js';
import { wireCall } from './wire-call.js';

/** Creates the topic and waits until every partition's leader answers ListOffsets; resolves with its id. */
export async function createServedTopic(
  bootstrap: string,
  name: string,
  partitions: number,
  configs: M.CreateTopicsRequestCreatableTopicConfigInput[] = [],
): Promise<string> {
  const topicId = await createTopic(bootstrap, name, partitions, configs);
  await until(`${name}'s leaders`, async () => {
    const r = await wireCall(bootstrap, M.ListOffsetsRequest, M.ListOffsetsResponse, 7, {
      replicaId: -1,
      topics: [{ name, partitions: Array.from({ length: partitions }, (_, partitionIndex) => ({ partitionIndex, timestamp: -1n })) }],
    });
    return r.topics.every((t) => t.partitions.every((p) => p.errorCode === ErrorCode.NONE)) ? true : undefined;
  });
  return topicId;
}

/** A producer id and epoch, once the broker has a block of ids (and the transaction coordinator, for a transactional id) ready. */
export async function initProducer(
  bootstrap: string,
  transactionalId: string | null = null,
): Promise<{ producerId: bigint; producerEpoch: number }> {
  if (transactionalId !== null) {
    // Kafka creates __transaction_state when a transaction coordinator is first looked up.
    await until('a transaction coordinator', async () => {
      const found = await wireCall(bootstrap, M.FindCoordinatorRequest, M.FindCoordinatorResponse, 4, {
        keyType: 1,
        coordinatorKeys: [transactionalId],
      });
      return found.coordinators[0]?.errorCode === ErrorCode.NONE ? true : undefined;
    });
  }
  return until('a producer id', async () => {
    const r = await wireCall(bootstrap, M.InitProducerIdRequest, M.InitProducerIdResponse, 4, {
      transactionalId,
      transactionTimeoutMs: 60_000,
    });
    return r.errorCode === ErrorCode.NONE ? { producerId: r.producerId, producerEpoch: r.producerEpoch } : undefined;
  });
}
