/**
 * Transaction markers as producer state sees them: what a leader is asked to write (a
 * WriteTxnMarkers entry), what a written marker says (from its control batch), and the
 * transaction it completes (Kafka's `CompletedTxn`).
 */
import { decompress } from '../../native/index.js';
import {
  ControlRecordType,
  decodeControlRecordKey,
  decodeEndTxnMarker,
  readRecords,
  type BatchHeader,
} from '@sluice/protocol/records/index.js';
import type { AbortedTxn } from '../index/transaction-index.js';
import type { Offset } from '@sluice/protocol/common/offsets.js';

/** A marker a partition leader is asked to write for a producer. */
export interface TxnMarkerRequest {
  readonly producerId: bigint;
  readonly producerEpoch: number;
  readonly coordinatorEpoch: number;
  /** true: COMMIT, false: ABORT. */
  readonly commit: boolean;
  /** WriteTxnMarkers' TransactionVersion: 0/1 legacy, 2 = KIP-890 part 2 (the coordinator bumped the epoch). */
  readonly transactionVersion: number;
}

/** A marker in the log: who wrote it, where, and what it decided. */
export interface TxnMarker {
  readonly producerId: bigint;
  readonly producerEpoch: number;
  readonly coordinatorEpoch: number;
  readonly commit: boolean;
  readonly offset: Offset;
  readonly timestamp: number;
}

/** A transaction a marker ended: from its first data batch to the marker. */
export interface CompletedTxn {
  readonly producerId: bigint;
  readonly firstOffset: Offset;
  /** The marker's offset. */
  readonly lastOffset: Offset;
  readonly aborted: boolean;
}

/**
 * The transaction marker a control batch holds (its first record), or null: an empty control
 * batch (the cleaner removed its transaction) or a control record of another type.
 */
export function readTxnMarker(bytes: Buffer, header: BatchHeader): TxnMarker | null {
  for (const record of readRecords(bytes, header, { decompress })) {
    const key = decodeControlRecordKey(record.key, header.start);
    if (key.type !== ControlRecordType.Commit && key.type !== ControlRecordType.Abort) return null;
    return {
      producerId: header.producerId,
      producerEpoch: header.producerEpoch,
      coordinatorEpoch: decodeEndTxnMarker(record.value, header.start).coordinatorEpoch,
      commit: key.type === ControlRecordType.Commit,
      offset: Number(record.offset) as Offset,
      timestamp: Number(record.timestamp),
    };
  }
  return null;
}

/** The transaction index entry of an aborted transaction. */
export function abortedTxnEntry(txn: CompletedTxn, lastStableOffset: Offset): AbortedTxn {
  return { producerId: txn.producerId, firstOffset: txn.firstOffset, lastOffset: txn.lastOffset, lastStableOffset };
}
