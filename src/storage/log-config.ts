/**
 * A topic's log settings under Kafka's keys, with Kafka 4.x defaults. Durations and sizes are
 * numbers; Kafka's "unbounded" Long.MAX_VALUE reads as 9.2e18, far above any clock value, so
 * comparisons against it behave as Kafka's do. Immutable: `withOverrides` returns a new config,
 * which `PartitionLog.updateConfig` swaps in live.
 */
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';

export type TimestampTypeName = 'CreateTime' | 'LogAppendTime';

export interface LogConfig {
  readonly 'segment.bytes': number;
  readonly 'segment.ms': number;
  readonly 'segment.jitter.ms': number;
  readonly 'segment.index.bytes': number;
  readonly 'index.interval.bytes': number;
  readonly 'retention.ms': number;
  readonly 'retention.bytes': number;
  readonly 'max.message.bytes': number;
  readonly 'message.timestamp.type': TimestampTypeName;
  readonly 'message.timestamp.before.max.ms': number;
  readonly 'message.timestamp.after.max.ms': number;
  readonly 'flush.messages': number;
  readonly 'flush.ms': number;
  readonly 'file.delete.delay.ms': number;
  readonly 'cleanup.policy': string;
  /** Compaction (`cleanup.policy` with `compact`): how long a tombstone outlives its first cleaning. */
  readonly 'delete.retention.ms': number;
  /** Clean a log only when dirty bytes / cleanable bytes reach this fraction (0..1). */
  readonly 'min.cleanable.dirty.ratio': number;
  /** Records younger than this (by segment largest timestamp) stay uncompacted. */
  readonly 'min.compaction.lag.ms': number;
  /** A dirty record older than this forces a cleaning whatever the ratio (and caps `segment.ms`). */
  readonly 'max.compaction.lag.ms': number;
}

const LONG_MAX = 2 ** 63; // Long.MAX_VALUE, 2^63 - 1, rounds to 2^63 as a double

export const DEFAULT_LOG_CONFIG: LogConfig = Object.freeze({
  'segment.bytes': 1024 * 1024 * 1024,
  'segment.ms': 7 * 24 * 60 * 60 * 1000,
  'segment.jitter.ms': 0,
  'segment.index.bytes': 10 * 1024 * 1024,
  'index.interval.bytes': 4096,
  'retention.ms': 7 * 24 * 60 * 60 * 1000,
  'retention.bytes': -1,
  'max.message.bytes': 1024 * 1024 + 12,
  'message.timestamp.type': 'CreateTime',
  'message.timestamp.before.max.ms': LONG_MAX,
  // KIP-1030: Kafka 4.0 bounds future timestamps to one hour by default.
  'message.timestamp.after.max.ms': 60 * 60 * 1000,
  'flush.messages': LONG_MAX,
  'flush.ms': LONG_MAX,
  'file.delete.delay.ms': 60_000,
  'cleanup.policy': 'delete',
  'delete.retention.ms': 24 * 60 * 60 * 1000,
  'min.cleanable.dirty.ratio': 0.5,
  'min.compaction.lag.ms': 0,
  'max.compaction.lag.ms': LONG_MAX,
});

/** Kafka's lower bounds (`LogConfig` validators); anything below is INVALID_CONFIG. */
const MINIMUMS: Partial<Record<keyof LogConfig, number>> = {
  'segment.bytes': 14,
  'segment.ms': 1,
  'segment.jitter.ms': 0,
  'segment.index.bytes': 4,
  'index.interval.bytes': 0,
  'retention.ms': -1,
  'retention.bytes': -1,
  'max.message.bytes': 0,
  'message.timestamp.before.max.ms': 0,
  'message.timestamp.after.max.ms': 0,
  'flush.messages': 1,
  'flush.ms': 0,
  'file.delete.delay.ms': 0,
  'delete.retention.ms': 0,
  'min.compaction.lag.ms': 0,
  'max.compaction.lag.ms': 1,
};

/** Settings that are fractions, not integers (Kafka's `between(0, 1)` validator). */
const RATIOS: ReadonlySet<keyof LogConfig> = new Set(['min.cleanable.dirty.ratio']);

function invalid(key: string, value: unknown): KafkaError {
  return new KafkaError(ErrorCode.INVALID_CONFIG, `invalid value ${String(value)} for ${key}`);
}

function isKey(key: string): key is keyof LogConfig {
  return Object.hasOwn(DEFAULT_LOG_CONFIG, key);
}

/**
 * Applies overrides given as Kafka key → string or number (the shape of DescribeConfigs /
 * AlterConfigs and of `server.properties`' `log.*` defaults once renamed). Unknown keys are
 * ignored: a topic carries many settings that are not the log's business.
 */
export function withOverrides(base: LogConfig, overrides: Readonly<Record<string, string | number>>): LogConfig {
  const next: Record<string, number | string> = { ...base };
  for (const [key, raw] of Object.entries(overrides)) {
    if (!isKey(key)) continue;
    if (key === 'message.timestamp.type') {
      if (raw !== 'CreateTime' && raw !== 'LogAppendTime') throw invalid(key, raw);
      next[key] = raw;
    } else if (key === 'cleanup.policy') {
      const policies = String(raw)
        .split(',')
        .map((p) => p.trim());
      if (policies.some((p) => p !== 'delete' && p !== 'compact')) throw invalid(key, raw);
      next[key] = policies.join(',');
    } else if (RATIOS.has(key)) {
      const value = typeof raw === 'number' ? raw : Number(String(raw).trim());
      if (!Number.isFinite(value) || value < 0 || value > 1) throw invalid(key, raw);
      next[key] = value;
    } else {
      const value = typeof raw === 'number' ? raw : Number(String(raw).trim());
      if (!Number.isFinite(value) || !Number.isInteger(value) || value < (MINIMUMS[key] ?? -Infinity)) throw invalid(key, raw);
      next[key] = value;
    }
  }
  return Object.freeze(next) as unknown as LogConfig;
}

export function logConfig(overrides: Readonly<Record<string, string | number>> = {}): LogConfig {
  return withOverrides(DEFAULT_LOG_CONFIG, overrides);
}

/** Retention applies only to topics whose cleanup policy includes `delete`. */
export function deletesSegments(config: LogConfig): boolean {
  return config['cleanup.policy'].split(',').includes('delete');
}

export function isCompacted(config: LogConfig): boolean {
  return config['cleanup.policy'].split(',').includes('compact');
}

/** Kafka's `LogConfig.maxSegmentMs`: a compacted log rolls by `max.compaction.lag.ms` too, so the cleaner can reach old records. */
export function maxSegmentMs(config: LogConfig): number {
  return isCompacted(config) ? Math.min(config['segment.ms'], config['max.compaction.lag.ms']) : config['segment.ms'];
}
