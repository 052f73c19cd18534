/**
 * Which batches of the cleaned range hold data of aborted transactions (Kafka's cleaner learns
 * it from the transaction index, as here): a transactional data batch of a producer, inside the
 * offset range of one of that producer's aborted transactions. The cleaner leaves such records
 * out of the key map (an aborted write must not supersede a committed one) and drops them.
 * Markers themselves are kept.
 */
import { isControl, isTransactional, type BatchHeader } from '@sluice/protocol/records/index.js';

/** An aborted transaction as the cleaning task carries it. */
export interface AbortedRange {
  readonly producerId: bigint;
  readonly firstOffset: number;
  readonly lastOffset: number;
}

export class AbortedData {
  readonly #byProducer = new Map<bigint, AbortedRange[]>();

  constructor(ranges: readonly AbortedRange[]) {
    for (const range of ranges) {
      const list = this.#byProducer.get(range.producerId);
      if (list === undefined) this.#byProducer.set(range.producerId, [range]);
      else list.push(range);
    }
  }

  holds(header: BatchHeader): boolean {
    if (!isTransactional(header.attributes) || isControl(header.attributes)) return false;
    const base = Number(header.baseOffset);
    return this.#byProducer.get(header.producerId)?.some((r) => r.firstOffset <= base && base <= r.lastOffset) ?? false;
  }
}
