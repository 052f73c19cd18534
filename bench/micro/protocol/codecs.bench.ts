/**
 * Decode + encode throughput of the generated codecs for Produce (v9, flexible) and Fetch
 * response (v12) messages carrying 1 MiB of records in 16 partitions, i.e. the cost of the
 * protocol layer per MiB moved. Records stay opaque bytes here, as on the broker's hot path.
 * Writes bench/results/micro-protocol.json. Run:
 *   npx tsc -p . && node dist/bench/micro/protocol/codecs.bench.js
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { Bench } from 'tinybench';
import {
  FetchResponse,
  ProduceRequest,
  type FetchResponseDataInput,
  type ProduceRequestDataInput,
} from '@sluice/protocol/messages/index.js';
import { Reader } from '@sluice/protocol/primitives/reader.js';
import { Writer } from '@sluice/protocol/primitives/writer.js';
import { encodeRecordBatch } from '@sluice/protocol/records/index.js';

const PARTITIONS = 16;
const RECORD_BYTES = 1024;
const RECORDS_PER_PARTITION = 64;

const batch = encodeRecordBatch({
  records: Array.from({ length: RECORDS_PER_PARTITION }, (_, i) => ({
    key: Buffer.from(`k${i}`),
    value: Buffer.alloc(RECORD_BYTES, i),
    headers: [],
    timestamp: 1_700_000_000_000n + BigInt(i),
  })),
});
const partitionIds = Array.from({ length: PARTITIONS }, (_, i) => i);

const produce: ProduceRequestDataInput = {
  acks: 1,
  timeoutMs: 30000,
  topicData: [{ name: 'bench', partitionData: partitionIds.map((index) => ({ index, records: batch })) }],
};
const fetch: FetchResponseDataInput = {
  responses: [
    {
      topicId: 'AAAAAAAAAAAAAAAAAAAAAQ',
      partitions: partitionIds.map((partitionIndex) => ({ partitionIndex, highWatermark: 1000n, records: batch })),
    },
  ],
};

function encode(write: (w: Writer) => void): Buffer {
  const w = new Writer(1 << 16);
  write(w);
  return w.finish();
}

const produceBytes = encode((w) => ProduceRequest.write(w, produce, 9));
const fetchBytes = encode((w) => FetchResponse.write(w, fetch, 12));
let sink = 0;

const cases = [
  {
    name: 'Produce v9 request decode',
    bytes: produceBytes.length,
    fn: () => (sink += ProduceRequest.read(new Reader(produceBytes), 9).topicData.length),
  },
  {
    name: 'Produce v9 request encode',
    bytes: produceBytes.length,
    fn: () => (sink += encode((w) => ProduceRequest.write(w, produce, 9)).length),
  },
  {
    name: 'Fetch v12 response decode',
    bytes: fetchBytes.length,
    fn: () => (sink += FetchResponse.read(new Reader(fetchBytes), 12).responses.length),
  },
  {
    name: 'Fetch v12 response encode',
    bytes: fetchBytes.length,
    fn: () => (sink += encode((w) => FetchResponse.write(w, fetch, 12)).length),
  },
];

const bench = new Bench({ time: 1000, warmupTime: 200 });
for (const c of cases) bench.add(c.name, c.fn);
await bench.run();

const results = cases.map((c, i) => {
  const result = bench.tasks[i]!.result;
  if (result === undefined || !('latency' in result)) throw new Error(`${c.name}: no statistics`);
  const meanMs = result.latency.mean;
  return { case: c.name, bytes: c.bytes, meanMs, mbPerSec: c.bytes / 1e6 / (meanMs / 1000) };
});
mkdirSync('bench/results', { recursive: true });
writeFileSync(
  'bench/results/micro-protocol.json',
  JSON.stringify({ date: new Date().toISOString(), node: process.version, results }, null, 2),
);
console.log('| case | message bytes | mean µs | MB/s |\n|---|---:|---:|---:|');
for (const r of results) console.log(`| ${r.case} | ${r.bytes} | ${(r.meanMs * 1000).toFixed(1)} | ${r.mbPerSec.toFixed(0)} |`);
if (sink === 0) console.log('');
