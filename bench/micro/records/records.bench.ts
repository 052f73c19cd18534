/**
 * Micro-benchmarks of the record-batch codec on 1 MiB of 1 KiB records: header + CRC
 * validation, full produce validation (records walked), record iteration, and encoding.
 * Writes bench/results/micro-records.json. Run: `npx tsc -p . && node dist/bench/micro/records/records.bench.js`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { Bench } from 'tinybench';
import { crc32cImplementation } from '../../../src/native/index.js';
import {
  checkBatchRecords,
  encodeRecordBatch,
  readRecords,
  validateBatches,
  validateProduceRecords,
  type RecordInput,
} from '@sluice/protocol/records/index.js';

const RECORD_BYTES = 1024;
const TOTAL_BYTES = 1024 * 1024;
const RECORDS_PER_MIB = TOTAL_BYTES / RECORD_BYTES;
const SMALL_BATCH_RECORDS = 16;
const SMALL_BATCHES = RECORDS_PER_MIB / SMALL_BATCH_RECORDS;

function sampleRecords(count: number, offset = 0): RecordInput[] {
  return Array.from({ length: count }, (_, i) => ({
    key: Buffer.from(`key-${offset + i}`),
    value: Buffer.alloc(RECORD_BYTES, (offset + i) & 0xff),
    headers: [{ key: 'trace', value: Buffer.from('abc') }],
    timestamp: 1_700_000_000_000n + BigInt(i),
  }));
}

const oneBatchRecords = sampleRecords(RECORDS_PER_MIB);
const oneBatch = encodeRecordBatch({ records: oneBatchRecords });
const manyBatches = Buffer.concat(
  Array.from({ length: SMALL_BATCHES }, (_, b) =>
    encodeRecordBatch({
      baseOffset: BigInt(b * SMALL_BATCH_RECORDS),
      records: sampleRecords(SMALL_BATCH_RECORDS, b * SMALL_BATCH_RECORDS),
    }),
  ),
);
const oneHeader = validateBatches(oneBatch);
if (!oneHeader.ok) throw oneHeader.error;
const header = oneHeader.batches[0]!;

/** Keeps results observable so the JIT cannot drop the work. */
let sink = 0;

const cases: { name: string; bytes: number; fn: () => void }[] = [
  {
    name: 'produce header + CRC check (1 batch, 1 MiB)',
    bytes: oneBatch.length,
    fn: () => {
      const r = validateProduceRecords(oneBatch);
      if (!r.ok) throw r.error;
      sink += r.batch.recordsCount;
    },
  },
  {
    name: `segment scan, header + CRC (${SMALL_BATCHES} batches of ${SMALL_BATCH_RECORDS} records)`,
    bytes: manyBatches.length,
    fn: () => {
      const r = validateBatches(manyBatches);
      if (!r.ok) throw r.error;
      sink += r.batches.length;
    },
  },
  {
    name: 'produce full validation (header + CRC + record walk)',
    bytes: oneBatch.length,
    fn: () => {
      const r = validateProduceRecords(oneBatch, { records: {} });
      if (!r.ok) throw r.error;
      sink += r.trailingBytes;
    },
  },
  {
    name: 'record walk only (checkBatchRecords)',
    bytes: oneBatch.length,
    fn: () => {
      if (checkBatchRecords(oneBatch, header) !== null) throw new Error('unexpected invalid batch');
    },
  },
  {
    name: 'record iteration (readRecords, views)',
    bytes: oneBatch.length,
    fn: () => {
      for (const record of readRecords(oneBatch, header)) sink += record.value!.length;
    },
  },
  {
    name: 'encode (encodeRecordBatch, 1024 records)',
    bytes: oneBatch.length,
    fn: () => {
      sink += encodeRecordBatch({ records: oneBatchRecords }).length;
    },
  },
];

const bench = new Bench({ time: 400, warmupTime: 100 });
for (const c of cases) bench.add(c.name, c.fn);
await bench.run();

const results = cases.map((c, i) => {
  const result = bench.tasks[i]!.result;
  if (result === undefined || !('latency' in result)) throw new Error(`${c.name}: no statistics`);
  const meanMs = result.latency.mean;
  return {
    name: c.name,
    bytesPerOp: c.bytes,
    meanMs: Number(meanMs.toFixed(4)),
    p99Ms: Number((result.latency.p99 ?? meanMs).toFixed(4)),
    iterations: Math.round(result.totalTime / result.period),
    mbPerSec: Number((c.bytes / 1e6 / (meanMs / 1e3)).toFixed(1)),
  };
});

const out = {
  benchmark: 'micro-records',
  date: new Date().toISOString(),
  node: process.version,
  cpu: (await import('node:os')).cpus()[0]?.model ?? 'unknown',
  crc32c: crc32cImplementation(),
  note: 'MB/s = 10^6 bytes of batch per second, from the mean time per operation',
  results,
};
const dir = new URL('../../../../bench/results/', import.meta.url);
mkdirSync(dir, { recursive: true });
writeFileSync(new URL('micro-records.json', dir), JSON.stringify(out, null, 2) + '\n');
console.table(results);
if (sink === -1) console.log('unreachable');
