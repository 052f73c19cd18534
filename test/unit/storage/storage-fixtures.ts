/** Shared fixtures of the storage tests: temporary log dirs, a settable clock, produced batches, verified transactional appends. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decompress } from '../../../src/native/index.js';
import { encodeRecordBatch, readBatchHeader, readRecords, setBaseOffset, setPartitionLeaderEpoch } from '@sluice/protocol/records/index.js';
import { LogDir } from '../../../src/storage/log/log-dir.js';
import { PartitionLog, type AppendOptions, type AppendResult, type PartitionLogOptions } from '../../../src/storage/log/partition-log.js';
import { VerificationRequired } from '../../../src/storage/producer-state/transaction-verifications.js';
import { logConfig } from '../../../src/storage/log-config.js';

export function tempDir(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), `sluice-${prefix}-`));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export class FakeClock {
  constructor(public nowMs = 1_700_000_000_000) {}
  readonly now = (): number => this.nowMs;
  advance(ms: number): void {
    this.nowMs += ms;
  }
}

/** A produced batch (base offset 0) of `count` records of `valueBytes` each, stamped `timestamp`. */
export function producedBatch(count: number, valueBytes: number, timestamp: number, seed = 0): Buffer {
  return encodeRecordBatch({
    records: Array.from({ length: count }, (_, i) => ({
      key: Buffer.from(`k${seed}-${i}`),
      value: Buffer.alloc(valueBytes, (seed + i) & 0xff),
      timestamp: BigInt(timestamp),
    })),
  });
}

/** A batch of `count` records as a leader wrote it: at `baseOffset`, stamped with `epoch`. */
export function replicatedBatch(count: number, baseOffset: number, epoch: number): Buffer {
  const batch = producedBatch(count, 10, 1, baseOffset);
  setBaseOffset(batch, 0, BigInt(baseOffset));
  setPartitionLeaderEpoch(batch, 0, epoch);
  return batch;
}

export interface DecodedBatch {
  baseOffset: number;
  lastOffset: number;
  values: Buffer[];
  timestamps: number[];
}

/** Splits fetched bytes into batches (a partial batch at the end is ignored, as clients do). */
export function decodeBatches(bytes: Buffer): DecodedBatch[] {
  const out: DecodedBatch[] = [];
  let at = 0;
  for (;;) {
    const header = readBatchHeader(bytes, at);
    if (header === null) return out;
    const records = [...readRecords(bytes, header, { decompress })];
    out.push({
      baseOffset: Number(header.baseOffset),
      lastOffset: Number(header.baseOffset) + header.lastOffsetDelta,
      values: records.map((r) => Buffer.from(r.value ?? Buffer.alloc(0))),
      timestamps: records.map((r) => Number(r.timestamp)),
    });
    at = header.end;
  }
}

export function openLog(
  dir: string,
  clock: FakeClock,
  overrides: Record<string, string | number> = {},
  extra: Partial<PartitionLogOptions> = {},
): PartitionLog {
  return PartitionLog.open({
    topicPartition: { topic: 't', partition: 0 },
    dir: join(dir, 't-0'),
    logDir: extra.logDir ?? new LogDir(dir),
    config: logConfig(overrides),
    clock: clock.now,
    ...extra,
  });
}

/**
 * A client's append as the Produce handler makes it (KIP-890): a transactional batch that would
 * open its producer's transaction is refused until verified, then appended verified (the tests
 * play a coordinator that confirms every partition). `append` is called with whether it is.
 */
export function withVerification<T>(append: (txnVerified: boolean) => T): T {
  try {
    return append(false);
  } catch (err) {
    if (!(err instanceof VerificationRequired)) throw err;
    return append(true);
  }
}

export function appendVerified(log: PartitionLog, records: Buffer, options: AppendOptions): AppendResult {
  return withVerification((txnVerified) => log.append(records, { ...options, txnVerified }));
}
