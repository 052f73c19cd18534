/** Fixtures of the compaction tests: keyed batches, a compacted log manager with an inline cleaner, whole-log reads. */
import { offsetOf } from '@sluice/protocol/common/offsets.js';
import { join } from 'node:path';
import { compress, decompress } from '../../../../src/native/index.js';
import { CompressionType, encodeRecordBatch, readBatchHeader, readRecords, type BatchHeader } from '@sluice/protocol/records/index.js';
import { cleanSegments } from '../../../../src/storage/cleaner/clean-segments.js';
import type { CleanRunner } from '../../../../src/storage/cleaner/cleaner-pool.js';
import { LogManager, type LogManagerOptions, type PartitionLog } from '../../../../src/storage/index.js';
import type { FakeClock } from '../storage-fixtures.js';

export const TP = { topic: 'compacted', partition: 0 };

export interface KV {
  readonly key: string | null;
  readonly value: string | null;
}

export function keyedBatch(
  records: readonly KV[],
  timestamp: number,
  compression: CompressionType = CompressionType.None,
  producer?: { id: bigint; epoch: number; sequence: number },
): Buffer {
  return encodeRecordBatch(
    {
      compression,
      producerId: producer?.id,
      producerEpoch: producer?.epoch,
      baseSequence: producer?.sequence,
      records: records.map((r) => ({
        key: r.key === null ? null : Buffer.from(r.key),
        value: r.value === null ? null : Buffer.from(r.value),
        timestamp: BigInt(timestamp),
      })),
    },
    compress,
  );
}

/** Runs jobs inline (same thread), so tests control timing; the result still settles asynchronously. */
export const inlineRunner: CleanRunner = (task) => Promise.resolve().then(() => cleanSegments(task));

export const COMPACT = {
  'cleanup.policy': 'compact',
  'segment.bytes': 1024 * 1024,
  'index.interval.bytes': 128,
  'min.cleanable.dirty.ratio': 0.01,
  'delete.retention.ms': 60_000,
  'file.delete.delay.ms': 0,
} as const;

export function openManager(dir: string, clock: FakeClock, extra: Partial<LogManagerOptions> = {}): LogManager {
  // Topic settings come from the caller (the metadata layer) at every open, as in the broker.
  return LogManager.open({ logDirs: [dir], clock: clock.now, cleaner: { runner: inlineRunner }, topicConfig: () => COMPACT, ...extra });
}

export function compactedLog(manager: LogManager, overrides: Record<string, string | number> = {}): PartitionLog {
  return manager.getOrCreateLog(TP, { config: { ...COMPACT, ...overrides } });
}

export interface ReadRecord {
  readonly offset: number;
  readonly key: string | null;
  readonly value: string | null;
}

export interface ReadBatch {
  readonly header: BatchHeader;
  readonly records: ReadRecord[];
}

/** Every batch from the log start to the log end, in order. */
export function readBatches(log: PartitionLog): ReadBatch[] {
  const out: ReadBatch[] = [];
  let offset: number = log.logStartOffset;
  while (offset < log.logEndOffset) {
    const bytes = log.readBuffer(offsetOf(offset), 1 << 20);
    if (bytes.length === 0) break;
    let at = 0;
    let next = offset;
    for (;;) {
      const header = readBatchHeader(bytes, at);
      if (header === null) break;
      const records = [...readRecords(bytes, header, { decompress })].map((r) => ({
        offset: Number(r.offset),
        key: r.key === null ? null : r.key.toString(),
        value: r.value === null ? null : r.value.toString(),
      }));
      if (Number(header.baseOffset) + header.lastOffsetDelta >= offset) out.push({ header, records });
      next = Number(header.baseOffset) + header.lastOffsetDelta + 1;
      at = header.end;
    }
    if (next <= offset) break;
    offset = next;
  }
  return out;
}

export function readAll(log: PartitionLog): ReadRecord[] {
  return readBatches(log).flatMap((b) => b.records);
}

export function logDirOf(root: string): string {
  return join(root, `${TP.topic}-${TP.partition}`);
}

/** maintain() and wait for the job it started (if any) to settle. */
export async function clean(manager: LogManager): Promise<void> {
  manager.maintain();
  await manager.cleaningIdle();
}
