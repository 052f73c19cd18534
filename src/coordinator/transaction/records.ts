/**
 * The `__transaction_state` records, as Kafka 4.x writes them: key = int16 record type 0 +
 * TransactionLogKey v0; value = int16 value version + TransactionLogValue, a null value being the
 * tombstone of an expired id. Kafka 4.x with `transaction.version` ≥ 1 writes value version 1 (the
 * flexible one, with the previous and next producer ids as tagged fields); version 0 is read too.
 * The last producer epoch is not stored: a replayed id has none (-1), as in Kafka.
 */
import { TransactionLogKey, TransactionLogValue } from '@sluice/protocol/messages/coordinator/transaction-log.js';
import { Reader } from '@sluice/protocol/primitives/reader.js';
import { readVersioned, writeVersioned } from '@sluice/protocol/primitives/versioned-schema.js';
import type { CoordinatorRecord } from '../runtime/coordinator-log.js';
import { typePrefixedKey } from '../group/records.js';
import { NO_PRODUCER_EPOCH, type TransactionMetadata } from './transaction-metadata.js';
import { groupByTopic, unionOf } from './topic-partitions.js';
import { TransactionState, stateOfId } from './transaction-state.js';

const TRANSACTION_LOG_TYPE = 0;
const TRANSACTION_LOG_VALUE_VERSION = 1;

function keyOf(transactionalId: string): Buffer {
  return typePrefixedKey(TransactionLogKey, TRANSACTION_LOG_TYPE, { transactionalId });
}

export function transactionRecord(m: TransactionMetadata): CoordinatorRecord {
  return {
    key: keyOf(m.transactionalId),
    value: writeVersioned(TransactionLogValue, TRANSACTION_LOG_VALUE_VERSION, {
      producerId: m.producerId,
      previousProducerId: m.prevProducerId,
      nextProducerId: m.nextProducerId,
      producerEpoch: m.producerEpoch,
      transactionTimeoutMs: m.txnTimeoutMs,
      transactionStatus: m.state,
      // Kafka writes no partition list (null) for Empty.
      transactionPartitions:
        m.state === TransactionState.Empty ? null : groupByTopic(m.partitions).map((g) => ({ topic: g.topic, partitionIds: g.partitions })),
      transactionLastUpdateTimestampMs: BigInt(m.txnLastUpdateTimestamp),
      transactionStartTimestampMs: BigInt(m.txnStartTimestamp),
      clientTransactionVersion: m.clientTransactionVersion,
    }),
  };
}

export function transactionTombstone(transactionalId: string): CoordinatorRecord {
  return { key: keyOf(transactionalId), value: null };
}

export type DecodedTransactionRecord =
  | { readonly type: 'transaction'; readonly transactionalId: string; readonly metadata: TransactionMetadata | null }
  /** A key of a record type this coordinator does not know: Kafka skips it. */
  | { readonly type: 'other'; readonly recordType: number };

/** Throws on bytes that do not parse: a corrupt `__transaction_state` record must stop loading. */
export function decodeTransactionRecord(key: Buffer, value: Buffer | null): DecodedTransactionRecord {
  const recordType = new Reader(key).int16();
  if (recordType !== TRANSACTION_LOG_TYPE) return { type: 'other', recordType };
  const transactionalId = TransactionLogKey.read(new Reader(key, 2), 0).transactionalId;
  if (value === null) return { type: 'transaction', transactionalId, metadata: null };
  const v = readVersioned(TransactionLogValue, value).data;
  const state = stateOfId(v.transactionStatus);
  return {
    type: 'transaction',
    transactionalId,
    metadata: {
      transactionalId,
      producerId: v.producerId,
      prevProducerId: v.previousProducerId,
      nextProducerId: v.nextProducerId,
      producerEpoch: v.producerEpoch,
      lastProducerEpoch: NO_PRODUCER_EPOCH,
      txnTimeoutMs: v.transactionTimeoutMs,
      state,
      // Kafka writes partitions in hash order; kept sorted here.
      partitions:
        state === TransactionState.Empty
          ? []
          : unionOf(
              [],
              (v.transactionPartitions ?? []).flatMap((p) => p.partitionIds.map((partition) => ({ topic: p.topic, partition }))),
            ),
      txnStartTimestamp: Number(v.transactionStartTimestampMs),
      txnLastUpdateTimestamp: Number(v.transactionLastUpdateTimestampMs),
      clientTransactionVersion: v.clientTransactionVersion,
    },
  };
}
