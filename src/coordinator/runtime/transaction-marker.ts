/**
 * What a coordinator's internal topic needs to know of Kafka transactions: the producer of a
 * transactional batch, and the end marker (a control batch) that commits or aborts it.
 */

/** The producer a transactional batch is written for (TxnOffsetCommit's producer id and epoch). */
export interface TxnProducer {
  readonly producerId: bigint;
  readonly producerEpoch: number;
}

/** A transaction's end marker for one partition, as WriteTxnMarkers carries it. */
export interface TxnMarker {
  producerId: bigint;
  producerEpoch: number;
  /** The transaction coordinator's epoch: a partition refuses markers of a fenced coordinator. */
  coordinatorEpoch: number;
  /** COMMIT, else ABORT. */
  commit: boolean;
  /** KIP-890: 2 when the producer epoch was bumped at the end of the transaction. */
  transactionVersion: number;
}
