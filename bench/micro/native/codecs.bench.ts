/**
 * Compress and decompress MB/s (of uncompressed bytes) for each Kafka codec on a batch of
 * 1 KiB JSON records, against the npm alternatives. Run:
 * `npx tsc -p . && node dist/bench/micro/native/codecs.bench.js`
 */
import zlib from 'node:zlib';
import * as lz4napi from 'lz4-napi';
import * as snappyNpm from 'snappy';
import { Bench } from 'tinybench';
import * as zstdNapi from 'zstd-napi';
import { CompressionCodec, compress, decompress } from '../../../src/native/index.js';
import { jsonRecords } from '../../../test/unit/native/json-records-helper.js';
import { consume, writeReport, type Row } from './report.js';

type Codec = (typeof CompressionCodec)[keyof typeof CompressionCodec];
interface Contender {
  codec: string;
  implementation: string;
  compress: (data: Buffer) => Buffer;
  decompress: (data: Buffer, size: number) => Buffer;
}

const sluice = (name: string, codec: Codec, note = ''): Contender => ({
  codec: name,
  implementation: `sluice${note}`,
  compress: (data) => compress(codec, data),
  decompress: (data, size) => decompress(codec, data, size),
});

const contenders: Contender[] = [
  sluice('gzip', CompressionCodec.Gzip, ' (node:zlib, bounded)'),
  { codec: 'gzip', implementation: 'kafkajs (node:zlib)', compress: (d) => zlib.gzipSync(d), decompress: (d) => zlib.gunzipSync(d) },
  sluice('snappy', CompressionCodec.Snappy, ' (libsnappy, xerial)'),
  {
    codec: 'snappy',
    implementation: 'snappy 7 (raw only)',
    compress: (d) => snappyNpm.compressSync(d),
    decompress: (d) => snappyNpm.uncompressSync(d) as Buffer,
  },
  sluice('lz4', CompressionCodec.Lz4, ' (liblz4 frame)'),
  {
    codec: 'lz4',
    implementation: 'lz4-napi (frame)',
    compress: (d) => lz4napi.compressFrameSync(d),
    decompress: (d) => lz4napi.decompressFrameSync(d),
  },
  sluice('zstd', CompressionCodec.Zstd, ' (libzstd, level 3)'),
  {
    codec: 'zstd',
    implementation: 'zstd-napi (level 3)',
    compress: (d) => zstdNapi.compress(d, { compressionLevel: 3 }),
    decompress: (d) => zstdNapi.decompress(d),
  },
];

const batch = jsonRecords(256); // ~256 KiB, a typical produce batch
const rows: Row[] = [];
for (const contender of contenders) {
  const packed = contender.compress(batch);
  if (!contender.decompress(packed, batch.length).equals(batch)) throw new Error(`${contender.implementation} does not round-trip`);
  const bench = new Bench({ time: 300, warmupTime: 100 });
  bench.add('compress', () => consume(contender.compress(batch).length));
  bench.add('decompress', () => consume(contender.decompress(packed, batch.length).length));
  await bench.run();
  const mbps = (name: string): number => {
    const result = bench.tasks.find((t) => t.name === name)?.result;
    if (result?.state !== 'completed') throw new Error(`${contender.implementation} ${name} did not complete`);
    return (result.throughput.mean * batch.length) / 1e6;
  };
  rows.push({
    codec: contender.codec,
    implementation: contender.implementation,
    ratio: batch.length / packed.length,
    'compress MB/s': mbps('compress'),
    'decompress MB/s': mbps('decompress'),
  });
}
writeReport('native-codecs', `Codecs on a ${Math.round(batch.length / 1024)} KiB batch of 1 KiB JSON records`, rows, [
  'MB/s counts uncompressed bytes. Synchronous calls on the main thread, one at a time.',
]);
