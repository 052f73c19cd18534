/**
 * KIP-890 on the produce path (and for TxnOffsetCommit, whose `__consumer_offsets` partition is the
 * transaction's too): before a leader appends a producer's transactional batches it asks
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
import { kafkaErrorCode } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { TRANSACTION_STATE_TOPIC } from '../metadata/topic-names.js';
import type { ClusterContext } from './cluster-context.js';
import type { TopicPartition } from '@sluice/protocol/common/topic-partition.js';

/** What the client's request version says it handles, and so how its partitions are verified and refused. */
export interface TransactionSupport {
  /** A producer on transaction version 2 sends no AddPartitionsToTxn: the partition is added for it. */
  readonly addsPartitions: boolean;
  /** It knows TRANSACTION_ABORTABLE; older clients get INVALID_TXN_STATE instead. */
  readonly knowsAbortable: boolean;
  /** What a transient coordinator error becomes, so that every client retries it. */
  readonly retryError: number;
}

/** Produce v11 is the first whose producers handle TRANSACTION_ABORTABLE, v12 the first on transaction version 2; NOT_ENOUGH_REPLICAS makes every producer retry without a metadata refresh. */
export function produceSupport(version: number): TransactionSupport {
  return { addsPartitions: version >= 12, knowsAbortable: version >= 11, retryError: ErrorCode.NOT_ENOUGH_REPLICAS };
}

/** TxnOffsetCommit v4 is the first that handles TRANSACTION_ABORTABLE, v5 the first on transaction version 2. */
export function txnOffsetCommitSupport(version: number): TransactionSupport {
  return { addsPartitions: version >= 5, knowsAbortable: version >= 4, retryError: ErrorCode.COORDINATOR_NOT_AVAILABLE };
}

const TV2 = 2;

/** The coordinator's transient errors: the client should simply retry. */
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

/** The error each partition is refused with; partitions missing from the answer may be written. */
export async function verifyTransactionalPartitions(
  c: ClusterContext,
  producer: TransactionalProducer,
  partitions: readonly TopicPartition[],
  support: TransactionSupport,
): Promise<Map<TopicPartition, number>> {
  let answers: ReadonlyArray<{ errorCode: number }>;
  await c.loadCoordinators();
  const verifyOnly = !support.addsPartitions;
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
  const refused = new Map<TopicPartition, number>();
  answers.forEach((a, i) => {
    if (a.errorCode !== ErrorCode.NONE) refused.set(partitions[i]!, clientError(a.errorCode, support));
  });
  return refused;
}

function clientError(errorCode: number, support: TransactionSupport): number {
  if (errorCode === ErrorCode.PRODUCER_FENCED) return ErrorCode.INVALID_PRODUCER_EPOCH;
  if (errorCode === ErrorCode.TRANSACTION_ABORTABLE && !support.knowsAbortable) return ErrorCode.INVALID_TXN_STATE;
  if (RETRY_ERRORS.has(errorCode)) return support.retryError;
  return errorCode;
}
