/**
 * Cost as the work grows: 1 KiB records flat out into one 16-partition topic (acks=1, no
 * compression, like the main produce workload) until it holds N GB, with throughput per GB
 * written from ProducerPerformance's 1 s windows. Retention is off on the topic so the log
 * really grows to N GB, which is checked on disk before the topic is deleted; its files are
 * waited for afterwards, so only one broker's N GB is ever on disk.
 */
import { growthCurve, BYTES_PER_GB } from './growth-curve.js';
import { parseProducerPerformance } from './java-tools.js';
import { freeBytes, topicLogBytes, waitUntilRemoved } from './log-disk.js';
import {
  createTopic,
  deleteTopic,
  freshTopic,
  measurement,
  observe,
  producerPerformance,
  type Measurement,
  type RunContext,
} from './workloads.js';

export const GROWTH_WORKLOAD_ID = 'growth';
/** freshTopic names every topic of this workload with this prefix. */
export const GROWTH_TOPIC_PREFIX = `bench-${GROWTH_WORKLOAD_ID}-`;
const RECORD_SIZE = 1024;
const PARTITIONS = 16;
const REPORTING_INTERVAL_MS = 1000;
/** Free space needed per GB of payload: batch headers, indexes and some margin for others. */
const DISK_PER_GB = 1.2 * BYTES_PER_GB;
/** The generator is killed below this average rate: a run that slow measures the machine, not the broker. */
const SLOWEST_MB_PER_SECOND = 10;
const REMOVAL_TIMEOUT_MS = 120_000;

export async function runGrowth(ctx: RunContext, gb: number): Promise<Measurement> {
  const logDir = ctx.broker.logDir;
  const free = logDir === null ? Infinity : freeBytes(logDir);
  if (free < gb * DISK_PER_GB) {
    throw new Error(
      `${(free / BYTES_PER_GB).toFixed(1)} GB free in ${logDir}, a ${gb} GB log needs ${((gb * DISK_PER_GB) / BYTES_PER_GB).toFixed(1)}`,
    );
  }
  const records = Math.ceil((gb * BYTES_PER_GB) / RECORD_SIZE);
  const topic = freshTopic(GROWTH_WORKLOAD_ID);
  const topicCreateSeconds = await createTopic(ctx, topic, PARTITIONS, ['retention.ms=-1', 'retention.bytes=-1']);
  try {
    const timeoutMs = Math.max(600_000, ((gb * BYTES_PER_GB) / (SLOWEST_MB_PER_SECOND * 1e6)) * 1000);
    const o = await observe(ctx.broker, () =>
      producerPerformance(
        ctx,
        topic,
        { records, recordSize: RECORD_SIZE, acks: '1', compression: 'none' },
        { reportingIntervalMs: REPORTING_INTERVAL_MS, timeoutMs },
      ),
    );
    const logBytesOnDisk = logDir === null ? null : topicLogBytes(logDir, topic);
    if (logBytesOnDisk !== null && logBytesOnDisk < gb * BYTES_PER_GB) {
      throw new Error(`the log holds ${logBytesOnDisk} bytes after ${gb} GB of records: the broker deleted some`);
    }
    const p = parseProducerPerformance(o.run.stdout);
    return measurement(ctx, GROWTH_WORKLOAD_ID, o, p.records, p.records * RECORD_SIZE, p.records / p.recordsPerSecond, {
      topicCreateSeconds,
      producerAvgLatencyMs: p.avgLatencyMs,
      growth: growthCurve(o.run.stdout, RECORD_SIZE, logBytesOnDisk),
    });
  } finally {
    await deleteTopic(ctx, topic);
    if (logDir !== null) await waitUntilRemoved(logDir, topic, REMOVAL_TIMEOUT_MS);
  }
}
