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
 * 4. same epoch: first sequence = last sequence + 1 (wrapping) → else OUT_OF_ORDER_SEQUENCE_NUMBER.
 *
 * A producer id with no state (never seen, expired, or its records deleted by retention) is
 * accepted at any sequence and epoch: Kafka 2.5+ (KIP-360) no longer answers UNKNOWN_PRODUCER_ID
 * from the produce path. Pure: no state changes here.
 */
import { KafkaError } from '../../common/kafka-error.js';
import { ErrorCode } from '../../protocol/errors.js';
import { NO_PRODUCER_EPOCH, type BatchMetadata, type ProducerBatch, type ProducerStateEntry } from './producer-state-entry.js';
import { inSequence } from './sequence.js';

/** Returns the kept batch `batch` duplicates, or null when it is new and in sequence; throws otherwise. */
export function checkProducerAppend(entry: ProducerStateEntry | undefined, batch: ProducerBatch): BatchMetadata | null {
  if (entry === undefined) return null;
  const duplicate = entry.findDuplicate(batch);
  if (duplicate !== null) return duplicate;
  const current = entry.producerEpoch;
  const { producerId, producerEpoch, baseSequence } = batch;
  if (producerEpoch < current) {
    throw new KafkaError(
      ErrorCode.INVALID_PRODUCER_EPOCH,
      `epoch ${producerEpoch} of producer ${producerId} is older than the last seen epoch ${current}`,
    );
  }
  if (producerEpoch !== current) {
    if (baseSequence !== 0 && current !== NO_PRODUCER_EPOCH) {
      throw new KafkaError(
        ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
        `producer ${producerId} starts epoch ${producerEpoch} at sequence ${baseSequence}, not 0 (current epoch ${current})`,
      );
    }
    return null;
  }
  if (current !== NO_PRODUCER_EPOCH && !inSequence(entry.lastSeq, baseSequence)) {
    throw new KafkaError(
      ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
      `out of order sequence for producer ${producerId}: ${baseSequence} after ${entry.lastSeq} (epoch ${producerEpoch})`,
    );
  }
  return null;
}
