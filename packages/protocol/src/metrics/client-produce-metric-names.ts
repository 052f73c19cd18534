/**
 * The names of the broker's per-client produce metrics, which `sluice tune --observe` scrapes:
 * the contract between the broker that exports them and the tools that read them.
 */
/** Kafka's codec ids 0..4 and their names, as `compression.type` spells them. */
export const CODEC_NAMES = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const;
export const CLIENT_PRODUCE_METRICS = {
  batchRecords: 'sluice_client_produce_batch_records',
  batchBytes: 'sluice_client_produce_batch_size_bytes',
  requestBatches: 'sluice_client_produce_request_batches',
  batchSpan: 'sluice_client_produce_batch_span_seconds',
  batchAge: 'sluice_client_produce_batch_age_seconds',
  batches: 'sluice_client_produce_batches_total',
  sampledBytes: 'sluice_client_produce_compression_sampled_bytes_total',
  trackedClients: 'sluice_client_produce_tracked_clients',
  evictedClients: 'sluice_client_produce_evicted_clients_total',
} as const;
