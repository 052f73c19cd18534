/**
 * KIP-890 on the produce path: before a leader appends a producer's transactional batches it asks
 * the transaction coordinator whether each partition is in that producer's ongoing transaction
 * (part 1, `verifyOnly`), or — for a producer on transaction version 2 (Produce v12+), which sends
 * no AddPartitionsToTxn itself — adds it (part 2); on a cluster whose coordinator of the
 * transactional id is another broker, by AddPartitionsToTxn v4+ to it. A late or retried batch of a transaction that
 * has ended is refused instead of opening a transaction the coordinator knows nothing of, whose
 * open state would hold every read_committed consumer at its first offset forever.
 *
 * The coordinator's answers are translated as Kafka's ReplicaManager does, for the producers that
 * only know the older errors.
 */
import { kafkaErrorCode } from '../common/kafka-error.js';
import { ErrorCode } from '../protocol/errors.js';
import { TRANSACTION_STATE_TOPIC } from '../cluster/topic-names.js';
import type { ClusterContext } from './cluster-context.js';
import type { TopicPartitionRef } from './txn-partitions.js';

/** Produce v11 is the first whose producers handle TRANSACTION_ABORTABLE; v12 the first on transaction version 2. */
const FIRST_ABORTABLE_VERSION = 11;
const FIRST_TV2_VERSION = 12;
const TV2 = 2;

/** Errors after which the producer must simply retry: NOT_ENOUGH_REPLICAS makes every client do so without a metadata refresh. */
const RETRY_ERRORS: ReadonlySet<number> = new Set([
  ErrorCode.CONCURRENT_TRANSACTIONS,
  ErrorCode.NETWORK_EXCEPTION,
  ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
  ErrorCode.COORDINATOR_NOT_AVAILABLE,
  ErrorCode.NOT_COORDINATOR,
]);

export interface TransactionalProducer {
  readonly transactionalId: string;
  readonly producerId: bigint;
  readonly producerEpoch: number;
}

/** The error each partition's batches are refused with; partitions missing from the answer may be appended. */
export async function verifyTransactionalPartitions(
  c: ClusterContext,
  producer: TransactionalProducer,
  partitions: readonly TopicPartitionRef[],
  produceVersion: number,
): Promise<Map<TopicPartitionRef, number>> {
  let answers: ReadonlyArray<{ errorCode: number }>;
  const verifyOnly = produceVersion < FIRST_TV2_VERSION;
  const coordinator = c.metadata.partition(TRANSACTION_STATE_TOPIC, c.transactions.partitionOf(producer.transactionalId))?.leader;
  const peers = c.membership?.transactionPeers;
  try {
    answers =
      peers === undefined || coordinator === undefined || coordinator === c.nodeId
        ? await c.transactions.addPartitions({ ...producer, partitions, verifyOnly, clientTransactionVersion: verifyOnly ? 0 : TV2 })
        : await peers.addPartitions(coordinator, { ...producer, partitions, verifyOnly });
  } catch (err) {
    const errorCode = kafkaErrorCode(err);
    answers = partitions.map(() => ({ errorCode }));
  }
  const refused = new Map<TopicPartitionRef, number>();
  answers.forEach((a, i) => {
    if (a.errorCode !== ErrorCode.NONE) refused.set(partitions[i]!, produceError(a.errorCode, produceVersion));
  });
  return refused;
}

function produceError(errorCode: number, produceVersion: number): number {
  if (errorCode === ErrorCode.PRODUCER_FENCED) return ErrorCode.INVALID_PRODUCER_EPOCH;
  if (errorCode === ErrorCode.TRANSACTION_ABORTABLE && produceVersion < FIRST_ABORTABLE_VERSION) return ErrorCode.INVALID_TXN_STATE;
  if (RETRY_ERRORS.has(errorCode)) return ErrorCode.NOT_ENOUGH_REPLICAS;
  return errorCode;
}
