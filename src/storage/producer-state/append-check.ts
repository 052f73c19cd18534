/**
 * The leader's check of an idempotent batch against what the partition knows of its producer,
 * before any offset is assigned (Kafka's `UnifiedLog.analyzeAndValidateProducerState` with
 * `ProducerAppendInfo.checkProducerEpoch` / `checkSequence`, client origin, data batches):
 *
 * 1. duplicate: same epoch and the exact sequence range of one of the five kept batches → the
 *    kept batch is returned and the caller answers with its offsets without writing;
 * 2. epoch older than the producer's → INVALID_PRODUCER_EPOCH (47; Kafka answers it instead of
 *    PRODUCER_FENCED since 2.7 so that the producer can abort and retry);
 * 3. a new epoch must start at sequence 0 → else OUT_OF_ORDER_SEQUENCE_NUMBER (45), unless the
 *    producer is unknown here;
 * 4. same epoch: first sequence = last sequence + 1 (wrapping) → else OUT_OF_ORDER_SEQUENCE_NUMBER;
 * 5. a non-transactional batch from a producer with an open transaction → INVALID_TXN_STATE (48).
 *
 * And the leader's check of a transaction marker (`checkTxnMarker`, Kafka 4.x's
 * `appendEndTxnMarker`): the epoch first, then the coordinator epoch.
 *
 * A producer id with no state (never seen, expired, or its records deleted by retention) is
 * accepted at any sequence and epoch: Kafka 2.5+ (KIP-360) no longer answers UNKNOWN_PRODUCER_ID
 * from the produce path. Pure: no state changes here.
 */
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { isTransactional } from '@sluice/protocol/records/index.js';
import { NO_PRODUCER_EPOCH, type BatchMetadata, type ProducerBatch, type ProducerStateEntry } from './producer-state-entry.js';
import { inSequence } from './sequence.js';
import type { TxnMarkerRequest } from './txn-marker.js';

/** WriteTxnMarkers' TransactionVersion from which the coordinator bumps the epoch for each marker (KIP-890 part 2). */
export const TRANSACTION_VERSION_2 = 2;

/**
 * Who wrote a batch the leader appends: a client, whose sequence numbers are checked, or a
 * coordinator writing its internal topic as a transaction's producer (TxnOffsetCommit), whose
 * batches all start at sequence 0 and are never retried, as Kafka's coordinator-origin appends.
 */
export type AppendOrigin = 'client' | 'coordinator';

/** Returns the kept batch `batch` duplicates, or null when it is new and in sequence; throws otherwise. */
export function checkProducerAppend(
  entry: ProducerStateEntry | undefined,
  batch: ProducerBatch,
  origin: AppendOrigin = 'client',
): BatchMetadata | null {
  if (entry === undefined) return null;
  const client = origin === 'client';
  const duplicate = client ? entry.findDuplicate(batch) : null;
  if (duplicate !== null) return duplicate;
  const current = entry.producerEpoch;
  const { producerId, producerEpoch } = batch;
  if (producerEpoch < current) {
    throw new KafkaError(
      ErrorCode.INVALID_PRODUCER_EPOCH,
      `epoch ${producerEpoch} of producer ${producerId} is older than the last seen epoch ${current}`,
    );
  }
  // A coordinator's batches are checked for their epoch and transaction state only.
  if (client) checkSequence(entry, batch);
  if (entry.hasOpenTxn && !isTransactional(batch.attributes)) {
    throw new KafkaError(
      ErrorCode.INVALID_TXN_STATE,
      `producer ${producerId} wrote a non-transactional batch while its transaction from offset ${entry.currentTxnFirstOffset} is open`,
    );
  }
  return null;
}

/** A client batch's sequence: a new epoch starts at 0, the same epoch goes on where it stopped. */
function checkSequence(entry: ProducerStateEntry, batch: ProducerBatch): void {
  const current = entry.producerEpoch;
  const { producerId, producerEpoch, baseSequence } = batch;
  if (producerEpoch !== current) {
    if (baseSequence !== 0 && current !== NO_PRODUCER_EPOCH) {
      throw new KafkaError(
        ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
        `producer ${producerId} starts epoch ${producerEpoch} at sequence ${baseSequence}, not 0 (current epoch ${current})`,
      );
    }
  } else if (current !== NO_PRODUCER_EPOCH && !inSequence(entry.lastSeq, baseSequence)) {
    throw new KafkaError(
      ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
      `out of order sequence for producer ${producerId}: ${baseSequence} after ${entry.lastSeq} (epoch ${producerEpoch})`,
    );
  }
}

/**
 * The leader's check of a marker against its producer's state:
 *
 * 1. epoch: legacy markers (transaction version 0/1) carry the transaction's epoch and must not
 *    be older than the producer's; from version 2 the coordinator bumps the epoch for every
 *    marker, so it must be newer — a marker at the producer's epoch is a late one from an earlier
 *    transaction → INVALID_PRODUCER_EPOCH. Kafka's one exception (KAFKA-19999): at the same
 *    epoch with no transaction open, it is a retry of the marker already written, accepted again;
 * 2. coordinator epoch older than the one of the producer's last marker: a zombie coordinator →
 *    TRANSACTION_COORDINATOR_FENCED.
 *
 * A producer with no state passes both (its marker completes nothing).
 */
export function checkTxnMarker(entry: ProducerStateEntry | undefined, marker: TxnMarkerRequest): void {
  if (entry === undefined) return;
  const current = entry.producerEpoch;
  const { producerId, producerEpoch, transactionVersion } = marker;
  const strict = transactionVersion >= TRANSACTION_VERSION_2;
  const stale = strict ? producerEpoch <= current : producerEpoch < current;
  const retriedMarker = strict && producerEpoch === current && !entry.hasOpenTxn;
  if (stale && !retriedMarker) {
    throw new KafkaError(
      ErrorCode.INVALID_PRODUCER_EPOCH,
      `marker epoch ${producerEpoch} of producer ${producerId} is ${strict ? 'not above' : 'older than'} the last seen epoch ${current} (transaction version ${transactionVersion})`,
    );
  }
  if (marker.coordinatorEpoch < entry.coordinatorEpoch) {
    throw new KafkaError(
      ErrorCode.TRANSACTION_COORDINATOR_FENCED,
      `coordinator epoch ${marker.coordinatorEpoch} of the marker for producer ${producerId} is older than ${entry.coordinatorEpoch}`,
    );
  }
}
