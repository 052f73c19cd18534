import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { mapFile } from '../../../src/native/index.js';
import { waitFor, when } from '../../helpers/wait-for.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const dir = mkdtempSync(join(tmpdir(), 'sluice-mmap-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

function fileWith(name: string, bytes: Buffer): { path: string; fd: number } {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return { path, fd: openSync(path, 'r+') };
}

const pattern = (length: number): Buffer => Buffer.from(Array.from({ length }, (_, i) => (i * 13) & 0xff));

test('a read-only mapping shows the file, from an offset that is not page aligned', () => {
  const content = pattern(20_000);
  const { fd } = fileWith('read.idx', content);
  try {
    const region = mapFile(fd, 4097, 10_000, false);
    assert.equal(region.bytes.length, 10_000);
    assert.ok(Buffer.from(region.buffer).equals(content.subarray(4097, 14_097)));
    region.unmap();
  } finally {
    closeSync(fd);
  }
});

test('writes through a writable mapping reach the file after msync', () => {
  const { path, fd } = fileWith('write.idx', Buffer.alloc(10 * 1024 * 1024));
  try {
    const region = mapFile(fd, 8192, 4096, true);
    const view = new DataView(region.buffer);
    view.setUint32(0, 0xdeadbeef);
    view.setUint32(4092, 42);
    region.msync();
    const onDisk = readFileSync(path);
    assert.equal(onDisk.readUInt32BE(8192), 0xdeadbeef);
    assert.equal(onDisk.readUInt32BE(8192 + 4092), 42);
    region.unmap();
  } finally {
    closeSync(fd);
  }
});

test('unmap detaches the buffer so no view can reach freed memory; it is idempotent', () => {
  const { fd } = fileWith('unmap.idx', pattern(8192));
  try {
    const region = mapFile(fd, 0, 8192, true);
    const view = region.bytes;
    region.unmap();
    assert.equal(region.mapped, false);
    assert.equal(region.buffer.byteLength, 0);
    assert.equal(view.length, 0);
    assert.equal(view[0], undefined);
    region.unmap();
    assert.throws(() => region.msync(), /unmapped/);
  } finally {
    closeSync(fd);
  }
});

test('a read-only region really is read-only: writing to it kills the process', () => {
  const { path, fd } = fileWith('ro.idx', pattern(4096));
  closeSync(fd);
  const index = new URL('../../../src/native/index.js', import.meta.url).href;
  const script = `
    import { openSync } from 'node:fs';
    import { mapFile } from ${JSON.stringify(index)};
    const region = mapFile(openSync(${JSON.stringify(path)}, 'r+'), 0, 4096, false);
    console.log(region.bytes[1]);
    region.bytes[1] = 0;
  `;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(child.stdout.trim(), '13', 'the region was readable');
  assert.ok(child.signal === 'SIGSEGV' || child.signal === 'SIGBUS', `child ended with ${child.signal ?? child.status}`);
  assert.equal(readFileSync(path)[1], 13);
});

test('ranges past the end of the file and bad arguments are refused without a crash', () => {
  const { fd } = fileWith('bad.idx', pattern(4096));
  try {
    assert.throws(() => mapFile(fd, 0, 4097, false), RangeError);
    assert.throws(() => mapFile(fd, 4000, 100, false), RangeError);
    assert.throws(() => mapFile(fd, 0, 0, false), RangeError);
    assert.throws(() => mapFile(fd, -1, 10, false), TypeError);
    assert.throws(() => mapFile(fd, 0, 1.5, false), TypeError);
    assert.throws(() => mapFile(fd, 0, 10, 'yes' as unknown as boolean), TypeError);
    assert.throws(() => mapFile(123456, 0, 10, false), { code: 'EBADF' });
  } finally {
    closeSync(fd);
  }
});

test('mappings left to the garbage collector are unmapped', async () => {
  const { path, fd } = fileWith('gc.idx', Buffer.alloc(1 << 20));
  const mapsOfFile = (): number =>
    readFileSync('/proc/self/maps', 'utf8')
      .split('\n')
      .filter((line) => line.endsWith(path)).length;
  try {
    for (let i = 0; i < 50; i++) mapFile(fd, 0, 1 << 20, false);
    assert.ok(mapsOfFile() >= 1);
    await waitFor('the collected mappings to be unmapped', 5000, () => (gc(), when(mapsOfFile() === 0)), 10);
    assert.equal(mapsOfFile(), 0);
  } finally {
    closeSync(fd);
  }
});
