/**
 * The transaction coordinator's settings, named after the Kafka broker keys they come from.
 * Defaults are Kafka 4.x's.
 */
export interface TransactionCoordinatorConfig {
  /** `transaction.max.timeout.ms`: an InitProducerId asking for a longer timeout answers INVALID_TRANSACTION_TIMEOUT. */
  transactionMaxTimeoutMs: number;
  /** `transactional.id.expiration.ms`: an id idle this long in Empty or Complete* is removed (tombstone). */
  transactionalIdExpirationMs: number;
  /** `transaction.abort.timed.out.transaction.cleanup.interval.ms`: how often transactions past their timeout are aborted. */
  abortTimedOutTransactionsIntervalMs: number;
  /** `transaction.remove.expired.transaction.cleanup.interval.ms`: how often expired transactional ids are removed. */
  removeExpiredTransactionalIdsIntervalMs: number;
  /**
   * The cluster's finalized `transaction.version` feature level, read at each use (UpdateFeatures
   * changes it). Aborts the coordinator starts itself (a timeout, an InitProducerId fencing an open
   * transaction) follow it, as in Kafka: at 2 they bump the epoch once more at the end, like every
   * TV2 transaction.
   */
  transactionVersionLevel: () => number;
  /** How long to wait before writing again the markers a partition leader could not take yet (Kafka's marker channel retries on its next send). */
  markerRetryBackoffMs: number;
}

export const DEFAULT_TRANSACTION_COORDINATOR_CONFIG: Readonly<TransactionCoordinatorConfig> = {
  transactionMaxTimeoutMs: 900_000,
  transactionalIdExpirationMs: 604_800_000,
  abortTimedOutTransactionsIntervalMs: 10_000,
  removeExpiredTransactionalIdsIntervalMs: 3_600_000,
  transactionVersionLevel: () => 2,
  markerRetryBackoffMs: 100,
};
