/**
 * What the coordinator knows of one transactional id, and the transitions Kafka's
 * `TransactionMetadata` prepares, as pure functions: each returns the next metadata (or throws a
 * `KafkaError` the request answers with) and never touches the current one. Legal transitions
 * only; an illegal one is a bug and throws a plain Error.
 */
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { unionOf } from './topic-partitions.js';
import { TransactionState, isIdle, isLegalTransition, stateName } from './transaction-state.js';
import type { TopicPartition } from '@sluice/protocol/common/topic-partition.js';

export const NO_PRODUCER_ID = -1n;
export const NO_PRODUCER_EPOCH = -1;
/** Short.MAX_VALUE: producer epochs are int16. */
export const MAX_PRODUCER_EPOCH = 32_767;
/** KIP-890 part 2: from this `transaction.version` on, every transaction ends with an epoch bump. */
export const FIRST_EPOCH_BUMPING_TRANSACTION_VERSION = 2;

export interface TransactionMetadata {
  readonly transactionalId: string;
  readonly producerId: bigint;
  /** The producer id before the last transition (Kafka sets it on every one). */
  readonly prevProducerId: bigint;
  /** TV2: the producer id the producer moves to when this transaction completes (its epoch ran out). */
  readonly nextProducerId: bigint;
  /** -1 until the first InitProducerId completes. */
  readonly producerEpoch: number;
  /**
   * The epoch before the last bump, so that a retried InitProducerId (KIP-360) or EndTxn is
   * recognised. Kafka does not store it: after a load it is -1, here as there.
   */
  readonly lastProducerEpoch: number;
  readonly txnTimeoutMs: number;
  readonly state: TransactionState;
  readonly partitions: readonly TopicPartition[];
  /** When the open transaction added its first partition; -1 when none is open. */
  readonly txnStartTimestamp: number;
  readonly txnLastUpdateTimestamp: number;
  /** The `transaction.version` of the client that made the last transition (0, or 2 for KIP-890 part 2). */
  readonly clientTransactionVersion: number;
}

type Change = Partial<Omit<TransactionMetadata, 'transactionalId' | 'prevProducerId' | 'state'>> & { readonly state: TransactionState };

export function supportsEpochBump(transactionVersion: number): boolean {
  return transactionVersion >= FIRST_EPOCH_BUMPING_TRANSACTION_VERSION;
}

/** Kafka keeps the last epoch back so that it can always fence a producer with a bump. */
export function isEpochExhausted(epoch: number): boolean {
  return epoch >= MAX_PRODUCER_EPOCH - 1;
}

/** A transactional id seen for the first time: Empty, with no epoch until its InitProducerId lands. */
export function newTransaction(transactionalId: string, producerId: bigint, txnTimeoutMs: number, now: number): TransactionMetadata {
  return {
    transactionalId,
    producerId,
    prevProducerId: NO_PRODUCER_ID,
    nextProducerId: NO_PRODUCER_ID,
    producerEpoch: NO_PRODUCER_EPOCH,
    lastProducerEpoch: NO_PRODUCER_EPOCH,
    txnTimeoutMs,
    state: TransactionState.Empty,
    partitions: [],
    txnStartTimestamp: -1,
    txnLastUpdateTimestamp: now,
    clientTransactionVersion: 0,
  };
}

function transition(m: TransactionMetadata, change: Change): TransactionMetadata {
  if (!isLegalTransition(m.state, change.state)) {
    throw new Error(`transactional id ${m.transactionalId}: illegal transition from ${stateName(m.state)} to ${stateName(change.state)}`);
  }
  const next: TransactionMetadata = { ...m, ...change, prevProducerId: m.producerId };
  if (next.producerId < 0n) throw new Error(`transactional id ${m.transactionalId}: illegal producer id ${next.producerId}`);
  if (next.state !== TransactionState.Dead && (next.producerEpoch < 0 || next.producerEpoch > MAX_PRODUCER_EPOCH)) {
    throw new Error(`transactional id ${m.transactionalId}: illegal producer epoch ${next.producerEpoch}`);
  }
  return next;
}

/**
 * InitProducerId on an idle id: the next epoch. `expectedEpoch` is the epoch a KIP-360 producer
 * says it has: the current one (or none yet) bumps, the one before the last bump is a retry of
 * that bump and gets it again, anything else is fenced.
 */
export function bumpEpoch(m: TransactionMetadata, txnTimeoutMs: number, expectedEpoch: number | null, now: number): TransactionMetadata {
  // Kafka rotates the producer id before the epoch can run out; reaching here means a fenced producer asked.
  if (isEpochExhausted(m.producerEpoch))
    throw new KafkaError(ErrorCode.UNKNOWN_SERVER_ERROR, `producer id ${m.producerId} has no epochs left`);
  let producerEpoch: number;
  let lastProducerEpoch: number;
  if (expectedEpoch === null) {
    producerEpoch = m.producerEpoch + 1;
    lastProducerEpoch = NO_PRODUCER_EPOCH;
  } else if (m.producerEpoch === NO_PRODUCER_EPOCH || expectedEpoch === m.producerEpoch) {
    producerEpoch = m.producerEpoch + 1;
    lastProducerEpoch = m.producerEpoch;
  } else if (expectedEpoch === m.lastProducerEpoch) {
    producerEpoch = m.producerEpoch;
    lastProducerEpoch = m.lastProducerEpoch;
  } else {
    throw new KafkaError(
      ErrorCode.PRODUCER_FENCED,
      `epoch ${expectedEpoch} is neither the current ${m.producerEpoch} nor the previous ${m.lastProducerEpoch}`,
    );
  }
  return transition(m, {
    state: TransactionState.Empty,
    producerEpoch,
    lastProducerEpoch,
    txnTimeoutMs,
    partitions: [],
    txnStartTimestamp: -1,
    txnLastUpdateTimestamp: now,
  });
}

/** InitProducerId when the epoch ran out: a new producer id at epoch 0. */
export function rotateProducerId(
  m: TransactionMetadata,
  producerId: bigint,
  txnTimeoutMs: number,
  now: number,
  keepLastEpoch: boolean,
): TransactionMetadata {
  return transition(m, {
    state: TransactionState.Empty,
    producerId,
    producerEpoch: 0,
    lastProducerEpoch: keepLastEpoch ? m.producerEpoch : NO_PRODUCER_EPOCH,
    txnTimeoutMs,
    partitions: [],
    txnStartTimestamp: -1,
    txnLastUpdateTimestamp: now,
  });
}

export function addPartitions(
  m: TransactionMetadata,
  added: readonly TopicPartition[],
  now: number,
  clientTransactionVersion: number,
): TransactionMetadata {
  return transition(m, {
    state: TransactionState.Ongoing,
    partitions: unionOf(m.partitions, added),
    txnStartTimestamp: isIdle(m.state) ? now : m.txnStartTimestamp,
    txnLastUpdateTimestamp: now,
    clientTransactionVersion,
  });
}

/**
 * The epoch an open transaction is fenced with before the coordinator aborts it (a newer producer's
 * InitProducerId, a timeout); never handed to a client. The last lost write of a fence cannot be
 * told apart from no fence here: the shard is rebuilt from the log after a failed append.
 */
export function fencedEpoch(m: TransactionMetadata): number {
  return m.producerEpoch === MAX_PRODUCER_EPOCH ? m.producerEpoch : m.producerEpoch + 1;
}

/**
 * EndTxn's decision (Prepare*). TV2 bumps the epoch (`nextProducerId` is the id to move to when it
 * runs out); an abort already at the highest epoch goes through without one, so that a broken
 * producer can recover. `noPartitionAdded`: a TV2 abort of a transaction that never started.
 */
export function prepareEnd(
  m: TransactionMetadata,
  commit: boolean,
  transactionVersion: number,
  nextProducerId: bigint,
  now: number,
  noPartitionAdded: boolean,
): TransactionMetadata {
  let producerEpoch = m.producerEpoch;
  let lastProducerEpoch = m.lastProducerEpoch;
  if (supportsEpochBump(transactionVersion)) {
    if (commit || m.producerEpoch !== MAX_PRODUCER_EPOCH) producerEpoch = m.producerEpoch + 1;
    lastProducerEpoch = m.producerEpoch;
  }
  return transition(m, {
    state: commit ? TransactionState.PrepareCommit : TransactionState.PrepareAbort,
    producerEpoch,
    lastProducerEpoch,
    nextProducerId,
    txnStartTimestamp: noPartitionAdded ? now : m.txnStartTimestamp,
    txnLastUpdateTimestamp: now,
    clientTransactionVersion: transactionVersion,
  });
}

/** Every marker is written: Complete*, moving a TV2 producer whose epoch ran out to its next producer id. */
export function complete(m: TransactionMetadata, now: number): TransactionMetadata {
  const rotate = supportsEpochBump(m.clientTransactionVersion) && m.nextProducerId !== NO_PRODUCER_ID;
  return transition(m, {
    state: m.state === TransactionState.PrepareCommit ? TransactionState.CompleteCommit : TransactionState.CompleteAbort,
    producerId: rotate ? m.nextProducerId : m.producerId,
    producerEpoch: rotate ? 0 : m.producerEpoch,
    nextProducerId: NO_PRODUCER_ID,
    partitions: [],
    txnLastUpdateTimestamp: now,
  });
}

/** Checks that an idle id may expire (Dead, then a tombstone). */
export function expire(m: TransactionMetadata): void {
  transition(m, { state: TransactionState.Dead, partitions: [] });
}
