/**
 * Storage engine micro-benchmarks, short runs (~20 s in all):
 * - append throughput for 1 KiB, 16 KiB and 1 MiB batches (full validation, offset assignment,
 *   index updates, one write per append) against a raw sequential `fs.writeSync` of the same
 *   bytes to the same disk, in the same run, as a ratio;
 * - read throughput (fetch-sized reads copied into memory, and lease-only lookups as used for
 *   sendfile);
 * - offset lookup cost as the log grows from 1 to 1,000 segments (must stay flat);
 * - start-up of a log dir with 1,000 segments after a clean shutdown.
 * Writes bench/results/storage-micro.json. Run: `npx tsc -p . && node dist/bench/micro/storage/storage.bench.js`.
 */
import { offsetOf } from '@sluice/protocol/common/offsets.js';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Bench } from 'tinybench';
import { encodeRecordBatch, setBaseOffset } from '@sluice/protocol/records/index.js';
import { LogManager, type PartitionLog } from '../../../src/storage/index.js';

const root = mkdtempSync(join(tmpdir(), 'sluice-storage-bench-'));
process.on('exit', () => rmSync(root, { recursive: true, force: true }));
const results: Record<string, unknown> = {};

function batchOf(batchBytes: number): Buffer {
  const recordBytes = Math.min(batchBytes, 1024);
  const count = Math.max(1, Math.floor(batchBytes / (recordBytes + 20)));
  return encodeRecordBatch({
    records: Array.from({ length: count }, (_, i) => ({
      key: null,
      value: Buffer.alloc(recordBytes, i & 0xff),
      timestamp: BigInt(Date.now()),
    })),
  });
}

function openPartition(name: string, config: Record<string, number> = {}): { manager: LogManager; log: PartitionLog } {
  const manager = LogManager.open({ logDirs: [join(root, name)] });
  return {
    manager,
    log: manager.getOrCreateLog({ topic: name, partition: 0 }, { config: { 'max.message.bytes': 2 * 1024 * 1024, ...config } }),
  };
}

const TOTAL = 256 * 1024 * 1024;
const appendRows: Array<Record<string, number | string>> = [];
for (const size of [1024, 16 * 1024, 1024 * 1024]) {
  const batch = batchOf(size);
  const count = Math.floor(TOTAL / batch.length);
  const { manager, log } = openPartition(`append-${size}`, { 'segment.bytes': 128 * 1024 * 1024 });
  let start = performance.now();
  for (let i = 0; i < count; i++) {
    setBaseOffset(batch, 0, 0n);
    log.append(batch, { leaderEpoch: 0 });
  }
  const appendMs = performance.now() - start;
  manager.close();
  const rawPath = join(root, `raw-${size}`);
  const fd = openSync(rawPath, 'w');
  start = performance.now();
  let position = 0;
  for (let i = 0; i < count; i++) position += writeSync(fd, batch, 0, batch.length, position);
  const rawMs = performance.now() - start;
  closeSync(fd);
  rmSync(rawPath);
  const mb = (count * batch.length) / 1e6;
  appendRows.push({
    batch: `${batch.length} B`,
    appendMBps: Math.round(mb / (appendMs / 1000)),
    rawWriteMBps: Math.round(mb / (rawMs / 1000)),
    ratio: Number((rawMs / appendMs).toFixed(2)),
    appendsPerSec: Math.round(count / (appendMs / 1000)),
  });
}
results['append'] = appendRows;
console.table(appendRows);

{
  const { manager, log } = openPartition('read', { 'segment.bytes': 64 * 1024 * 1024 });
  const batch = batchOf(16 * 1024);
  for (let i = 0; i < 8192; i++) {
    setBaseOffset(batch, 0, 0n);
    log.append(batch, { leaderEpoch: 0 });
  }
  const end = log.logEndOffset;
  let bytes = 0;
  let start = performance.now();
  for (let offset = 0; offset < end;) {
    const buf = log.readBuffer(offsetOf(offset), 1024 * 1024);
    bytes += buf.length;
    offset += Math.max(1, Math.floor((buf.length / batch.length) * 15)) * 1;
    offset = Math.min(end, offset);
  }
  const readMs = performance.now() - start;
  let leases = 0;
  start = performance.now();
  for (let i = 0; i < 100_000; i++) {
    const slice = log.read(offsetOf((i * 7919) % end), 1024 * 1024)!;
    slice.release();
    leases++;
  }
  const leaseMs = performance.now() - start;
  results['read'] = {
    copyMBps: Math.round(bytes / 1e6 / (readMs / 1000)),
    leaseLookupsPerSec: Math.round(leases / (leaseMs / 1000)),
    leaseLookupMicros: Number(((leaseMs * 1000) / leases).toFixed(2)),
  };
  console.table([results['read']]);
  manager.close();
}

{
  const { manager, log } = openPartition('lookup', { 'segment.bytes': 64 * 1024, 'index.interval.bytes': 4096 });
  const batch = batchOf(1024);
  const rows: Array<Record<string, number>> = [];
  for (const target of [1, 10, 100, 1000]) {
    while (log.segmentCount < target || log.logEndOffset === 0) {
      setBaseOffset(batch, 0, 0n);
      log.append(batch, { leaderEpoch: 0 });
    }
    const end = log.logEndOffset;
    let i = 0;
    const bench = new Bench({ time: 300 });
    bench.add(`lookup ${target}`, () => {
      const slice = log.read(offsetOf((i++ * 104729) % end), 1)!;
      slice.release();
    });
    await bench.run();
    const task = bench.tasks[0]!.result;
    const mean = task !== undefined && 'latency' in task ? task.latency.mean : NaN;
    rows.push({ segments: log.segmentCount, offsets: end, meanMicros: Number((mean * 1000).toFixed(2)) });
  }
  results['lookup'] = rows;
  console.table(rows);
  manager.close();
}

{
  const dir = join(root, 'startup');
  const { manager, log } = (() => {
    const m = LogManager.open({ logDirs: [dir] });
    return { manager: m, log: m.getOrCreateLog({ topic: 'startup', partition: 0 }, { config: { 'segment.bytes': 2048 } }) };
  })();
  const batch = batchOf(1024);
  while (log.segmentCount < 1000) {
    setBaseOffset(batch, 0, 0n);
    log.append(batch, { leaderEpoch: 0 });
  }
  manager.close();
  const start = performance.now();
  const reopened = LogManager.open({ logDirs: [dir] });
  const openMs = performance.now() - start;
  const segments = reopened.getLog({ topic: 'startup', partition: 0 })!.segmentCount;
  reopened.close();
  results['startup'] = { segments, openMs: Number(openMs.toFixed(1)) };
  console.table([results['startup']]);
}

const out = join(process.cwd(), 'bench', 'results');
mkdirSync(out, { recursive: true });
writeFileSync(
  join(out, 'storage-micro.json'),
  JSON.stringify({ node: process.version, date: new Date().toISOString(), ...results }, null, 2) + '\n',
);
