/**
 * The leader's side of KIP-890 part 1 (Kafka's `VerificationStateEntry`): a producer's
 * transactional batch that would open a transaction in this partition is first refused with
 * `VerificationRequired`, which records the batch's epoch and the lowest sequence seen in such
 * attempts; once the transaction coordinator confirmed the partition is in the producer's open
 * transaction, the batch comes back verified and is appended — unless a lower sequence is still
 * waiting for its own verification, so that a later batch that verified first cannot open the
 * transaction past an earlier one (Kafka answers OUT_OF_ORDER_SEQUENCE_NUMBER, which the Java
 * producer turns into an abortable error when its earlier batch is still unanswered; Sluice answers
 * NOT_ENOUGH_REPLICAS, which every producer simply retries), or the transaction ended meanwhile (its
 * marker forgot the verification: INVALID_TXN_STATE, so a late batch opens no transaction that
 * nobody will end).
 *
 * Leader state in memory only: a follower never verifies, and a reload starts without any.
 */
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import type { ProducerBatch } from './producer-state-entry.js';

/** Thrown for a transactional batch that must be verified with the transaction coordinator before it is appended. */
export class VerificationRequired extends Error {
  constructor(readonly producerId: bigint) {
    super(`producer ${producerId} opens a transaction here: the coordinator must confirm the partition is in it`);
    this.name = 'VerificationRequired';
  }
}

interface Verification {
  epoch: number;
  lowestSequence: number;
  readonly startedMs: number;
}

/** WriteTxnMarkers' TransactionVersion from which a marker carries the epoch the next transaction runs at. */
const TRANSACTION_VERSION_2 = 2;

export class TransactionVerifications {
  readonly #pending = new Map<bigint, Verification>();

  /**
   * A batch that would open a transaction: an unverified one is recorded and refused with
   * `VerificationRequired`; a verified one passes only as described above.
   */
  check(batch: ProducerBatch, verified: boolean, nowMs: number): void {
    const pending = this.#pending.get(batch.producerId);
    if (!verified) {
      if (pending === undefined || batch.producerEpoch > pending.epoch) {
        this.#pending.set(batch.producerId, { epoch: batch.producerEpoch, lowestSequence: batch.baseSequence, startedMs: nowMs });
      } else if (batch.producerEpoch === pending.epoch && batch.baseSequence < pending.lowestSequence) {
        pending.lowestSequence = batch.baseSequence;
      }
      throw new VerificationRequired(batch.producerId);
    }
    if (pending === undefined) {
      throw new KafkaError(
        ErrorCode.INVALID_TXN_STATE,
        `the transaction of producer ${batch.producerId} ended while its partition was being verified`,
      );
    }
    if (batch.producerEpoch < pending.epoch) {
      throw new KafkaError(
        ErrorCode.INVALID_PRODUCER_EPOCH,
        `epoch ${batch.producerEpoch} of producer ${batch.producerId} is older than the verified epoch ${pending.epoch}`,
      );
    }
    if (batch.producerEpoch === pending.epoch && batch.baseSequence > pending.lowestSequence) {
      throw new KafkaError(
        ErrorCode.NOT_ENOUGH_REPLICAS,
        `producer ${batch.producerId} opens its transaction at sequence ${batch.baseSequence} while sequence ${pending.lowestSequence} awaits verification: retry`,
      );
    }
  }

  /** The batch opened the transaction: later ones of it need no verification. */
  opened(producerId: bigint): void {
    this.#pending.delete(producerId);
  }

  /**
   * A marker ended the producer's transaction: verifications of it are void. From transaction
   * version 2 the marker's epoch is the next transaction's, whose verifications stand.
   */
  ended(producerId: bigint, markerEpoch: number, transactionVersion: number): void {
    const pending = this.#pending.get(producerId);
    if (pending === undefined) return;
    const voided = transactionVersion >= TRANSACTION_VERSION_2 ? pending.epoch < markerEpoch : pending.epoch <= markerEpoch;
    if (voided) this.#pending.delete(producerId);
  }

  /** Verifications left unfinished for `expirationMs` (the producer gave up) go. */
  expire(nowMs: number, expirationMs: number): void {
    for (const [producerId, v] of this.#pending) if (nowMs - v.startedMs >= expirationMs) this.#pending.delete(producerId);
  }

  clear(): void {
    this.#pending.clear();
  }
}
