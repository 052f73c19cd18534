import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { CompressionCodec, compress, crc32c } from '../../../src/native/index.js';

const index = new URL('../../../src/native/index.js', import.meta.url).href;
const accelerators = import.meta.resolve('@sluice/protocol/accelerators.js');

// Each worker loads the addon, uses every capability, and leaves one region mapped on purpose:
// the addon's per-environment cleanup hook must release it when the worker exits.
const workerSource = `
  import { openSync, closeSync } from 'node:fs';
  import { parentPort, workerData } from 'node:worker_threads';
  const { crc32c, compress, decompress, mapFile, CompressionCodec } = await import(${JSON.stringify(index)});
  const { acceleratorProvider } = await import(${JSON.stringify(accelerators)});
  const data = Buffer.alloc(256 * 1024, workerData.id);
  const results = { crc: crc32c(data), codecs: [], accelerators: acceleratorProvider() };
  for (const codec of [CompressionCodec.Gzip, CompressionCodec.Snappy, CompressionCodec.Lz4, CompressionCodec.Zstd]) {
    const packed = compress(codec, data);
    results.codecs.push(decompress(codec, packed, data.length).equals(data) ? packed.length : -1);
  }
  const fd = openSync(workerData.path, 'r+');
  const kept = mapFile(fd, 0, 4096, true);
  kept.bytes[workerData.id] = workerData.id;
  kept.msync();
  const released = mapFile(fd, 4096, 4096, false);
  released.unmap();
  closeSync(fd);
  parentPort.postMessage(results);
`;

function mapsOf(path: string): number {
  return readFileSync('/proc/self/maps', 'utf8')
    .split('\n')
    .filter((line) => line.endsWith(path)).length;
}

test('four workers load the addon concurrently, use it, and exit cleanly', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-workers-'));
  const path = join(dir, 'shared.idx');
  writeFileSync(path, Buffer.alloc(8192));
  try {
    const runs = [1, 2, 3, 4].map((id) => {
      const worker = new Worker(workerSource, { eval: true, workerData: { id, path } });
      const message = new Promise<{ crc: number; codecs: number[]; accelerators: string }>((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
      });
      const exit = new Promise<number>((resolve) => worker.once('exit', resolve));
      return { id, message, exit };
    });
    for (const run of runs) {
      const result = await run.message;
      const data = Buffer.alloc(256 * 1024, run.id);
      assert.equal(result.crc, crc32c(data));
      assert.equal(result.accelerators, 'sluice-native', "the wrappers installed the addon's accelerators in the worker");
      assert.deepEqual(
        result.codecs,
        [CompressionCodec.Gzip, CompressionCodec.Snappy, CompressionCodec.Lz4, CompressionCodec.Zstd].map(
          (codec) => compress(codec, data).length,
        ),
      );
      assert.equal(await run.exit, 0);
    }
    const written = readFileSync(path);
    assert.deepEqual([...written.subarray(1, 5)], [1, 2, 3, 4]);
    assert.equal(mapsOf(path), 0, 'regions left mapped by the workers were released at exit');
    assert.equal(crc32c(Buffer.from('123456789')), 0xe3069283, 'the main thread still uses the addon');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
