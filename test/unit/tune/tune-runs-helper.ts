/** Runs of a cell with figures derived from a throughput and a p99, for the aggregation and report tests. */
import type { BrokerBatchStats } from '@sluice/tune/broker-batch-stats.js';
import type { KneeRun, RunResult } from '@sluice/tune/run-aggregate.js';

export function run(recordsPerSecond: number, p99Ms: number, overrides: Partial<RunResult> = {}): RunResult {
  return {
    sentRecords: recordsPerSecond,
    acknowledgedRecords: recordsPerSecond,
    failedRecords: 0,
    firstError: null,
    elapsedSeconds: 1,
    recordsPerSecond,
    mbPerSecond: recordsPerSecond / 1024,
    latency: { count: recordsPerSecond, meanMs: p99Ms / 2, p50Ms: p99Ms / 4, p95Ms: p99Ms / 2, p99Ms, p999Ms: p99Ms * 2, maxMs: p99Ms * 3 },
    endToEnd: null,
    consumedRecords: 0,
    batches: recordsPerSecond / 10,
    recordsPerBatch: 10,
    bytesPerBatch: 10_240,
    clientMetrics: { 'batch-size-avg': 10_240 },
    targetRate: recordsPerSecond,
    broker: null,
    knee: null,
    ...overrides,
  };
}

/** A verified knee at `maxSustainableRate`, with its run at half of it at `halfP99Ms`. */
export function knee(maxSustainableRate: number, halfP99Ms: number): KneeRun {
  const half = run(maxSustainableRate / 2, halfP99Ms);
  return {
    maxSustainableRate,
    verified: true,
    probes: [],
    atHalf: { targetRate: half.targetRate, recordsPerSecond: half.recordsPerSecond, latency: half.latency, endToEnd: null },
  };
}

export function brokerStats(batches: number): BrokerBatchStats {
  return {
    batches,
    meanBatchBytes: 10_240,
    p50BatchBytes: 8_000,
    meanRecordsPerBatch: 10,
    p50RecordsPerBatch: 9,
    produceRequests: batches / 2,
    meanBatchesPerRequest: 2,
  };
}
