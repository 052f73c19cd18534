/**
 * CRC32C throughput, 1 KiB to 1 MiB: the addon (SSE4.2 and its portable path), @node-rs/crc32
 * and the pure-TS reference. Run: `npx tsc -p . && node dist/bench/micro/native/crc32c.bench.js`
 */
import { randomBytes } from 'node:crypto';
import { crc32c as nodeRsCrc32c } from '@node-rs/crc32';
import { Bench } from 'tinybench';
import { native } from '../../../src/native/binding.js';
import { crc32cJs } from '@sluice/protocol/checksum/crc32c-js.js';
import { consume, writeReport, type Row } from './report.js';

const addon = native();
const implementations: [string, (data: Uint8Array) => number][] = [
  [`sluice native (${addon.crc32cImplementation})`, (data) => addon.crc32c(data)],
  ['sluice native (portable tables)', (data) => addon.crc32cPortable(data)],
  ['@node-rs/crc32', (data) => nodeRsCrc32c(data)],
  ['pure TS (slicing-by-8)', (data) => crc32cJs(data)],
];

const rows: Row[] = [];
for (const size of [1024, 16 * 1024, 64 * 1024, 1024 * 1024]) {
  const data = randomBytes(size);
  const bench = new Bench({ time: 400, warmupTime: 100 });
  for (const [name, run] of implementations) bench.add(name, () => consume(run(data)));
  await bench.run();
  for (const task of bench.tasks) {
    const result = task.result;
    if (result.state !== 'completed') throw new Error(`${task.name}: ${result.state}`);
    rows.push({
      size: size >= 1024 * 1024 ? `${size / 1024 / 1024} MiB` : `${size / 1024} KiB`,
      implementation: task.name,
      'GB/s': (result.throughput.mean * size) / 1e9,
    });
  }
}
writeReport('native-crc32c', 'CRC32C throughput', rows);
