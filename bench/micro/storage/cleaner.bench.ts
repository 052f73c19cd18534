/**
 * Compaction throughput and memory: ~100 MB of keyed 1 KiB records (10,000 distinct keys, so
 * about 90% of the records are superseded) in 16 MiB segments, cleaned once by `cleanSegments`
 * on this thread (the work a piscina thread does), then once more through the LogManager and
 * its pool. Reports MB/s of input and how much the inline run raised the process's peak RSS.
 *
 *   npx tsc -p . && node dist/bench/micro/storage/cleaner.bench.js [MB]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeRecordBatch } from '@sluice/protocol/records/index.js';
import { cleanSegments } from '../../../src/storage/cleaner/clean-segments.js';
import { LogManager } from '../../../src/storage/index.js';

const TOTAL_MB = Number(process.argv[2] ?? 100);
const VALUE_BYTES = 1024;
const KEYS = 10_000;
const PER_BATCH = 64;
const CONFIG = { 'cleanup.policy': 'compact', 'segment.bytes': 16 * 1024 * 1024, 'min.cleanable.dirty.ratio': 0.01 };

function fill(manager: LogManager, topic: string): number {
  const log = manager.getOrCreateLog({ topic, partition: 0 }, { config: CONFIG });
  const value = Buffer.alloc(VALUE_BYTES, 7);
  let n = 0;
  while (log.size < TOTAL_MB * 1024 * 1024) {
    const records = Array.from({ length: PER_BATCH }, () => ({
      key: Buffer.from(`key-${n++ % KEYS}`),
      value,
      timestamp: BigInt(Date.now()),
    }));
    log.append(encodeRecordBatch({ records }), { leaderEpoch: 0 });
  }
  log.highWatermark = log.logEndOffset;
  log.roll();
  return log.size;
}

const dir = mkdtempSync(join(tmpdir(), 'sluice-cleaner-bench-'));
try {
  const manager = LogManager.open({ logDirs: [dir], topicConfig: () => CONFIG });
  const bytes = fill(manager, 'inline');
  const log = manager.getLog({ topic: 'inline', partition: 0 })!;
  const { segments } = log.cleanableSegments();
  const leases = segments.map((s) => s.lease());
  // maxRSS is the process's high-water mark (KiB): a timer could not sample during the synchronous job.
  const rssBefore = process.resourceUsage().maxRSS * 1024;
  const started = performance.now();
  const result = cleanSegments({
    dir: log.dir,
    segments: segments.map((s, i) => ({
      baseOffset: s.baseOffset,
      nextOffset: segments[i + 1]?.baseOffset ?? log.activeSegment.baseOffset,
      fd: leases[i]!.fd,
      size: s.size,
    })),
    firstDirtyOffset: 0,
    firstUncleanableOffset: log.activeSegment.baseOffset,
    nowMs: Date.now(),
    deleteRetentionMs: 86_400_000,
    segmentBytes: CONFIG['segment.bytes'],
    indexIntervalBytes: 4096,
    maxIndexBytes: 10 * 1024 * 1024,
    maxMapEntries: 4 * 1024 * 1024,
    producerLastOffsets: [],
    abortedTransactions: [],
  });
  const inlineMs = performance.now() - started;
  const peak = process.resourceUsage().maxRSS * 1024;
  for (const lease of leases) lease.release();
  log.replaceWithCleaned(result.cleaned, { segments, truncations: log.cleanableSegments().truncations });

  const poolBytes = fill(manager, 'pool');
  const poolStarted = performance.now();
  manager.maintain();
  await manager.cleaningIdle();
  const poolMs = performance.now() - poolStarted;
  const mb = (n: number): number => n / (1024 * 1024);
  console.table({
    inline: {
      inputMB: mb(bytes).toFixed(1),
      outputMB: mb(result.stats.bytesWritten).toFixed(1),
      ms: inlineMs.toFixed(0),
      'MB/s': (mb(bytes) / (inlineMs / 1000)).toFixed(0),
      keys: result.stats.mapEntries,
      'peak RSS rise MB': mb(peak - rssBefore).toFixed(0),
    },
    'piscina pool (via maintain)': {
      inputMB: mb(poolBytes).toFixed(1),
      ms: poolMs.toFixed(0),
      'MB/s': (mb(poolBytes) / (poolMs / 1000)).toFixed(0),
    },
  });
  manager.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
