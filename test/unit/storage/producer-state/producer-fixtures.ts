/** Fixtures of the producer state tests: batches from an idempotent producer. */
import { encodeRecordBatch } from '@sluice/protocol/records/index.js';

export interface IdempotentBatch {
  readonly producerId: bigint;
  readonly epoch: number;
  readonly sequence: number;
  readonly count: number;
  readonly timestamp: number;
}

/** A produced batch (base offset 0) of `count` records from producer `producerId`, sequences from `sequence`. */
export function idempotentBatch(b: IdempotentBatch): Buffer {
  return encodeRecordBatch({
    producerId: b.producerId,
    producerEpoch: b.epoch,
    baseSequence: b.sequence,
    records: Array.from({ length: b.count }, (_, i) => ({
      key: null,
      value: Buffer.from(`p${b.producerId}-e${b.epoch}-s${b.sequence + i}`),
      timestamp: BigInt(b.timestamp),
    })),
  });
}

/** `{ code }` of a thrown KafkaError, for `assert.throws`. */
export function hasCode(code: number): (e: unknown) => boolean {
  return (e: unknown) => (e as { code?: number }).code === code;
}
