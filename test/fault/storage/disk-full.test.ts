import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { Faults, LogManager, StorageError } from '../../../src/storage/index.js';
import { OffsetIndex } from '../../../src/storage/index/offset-index.js';
import { positionOf } from '../../../src/storage/offsets.js';
import { offsetOf } from '@sluice/protocol/common/offsets.js';
import { isIoError } from '../../../src/storage/storage-error.js';
import { producedBatch, tempDir } from '../../unit/storage/storage-fixtures.js';
import { fillUntilFull, mountTmpfs, unmountTmpfs } from '../../helpers/tmpfs.js';

const root = tempDir('full');
process.on('exit', root.remove);

const isStorageError = (e: unknown): boolean => e instanceof StorageError && e.code === ErrorCode.KAFKA_STORAGE_ERROR;

/** A tmpfs of `size` at `dir`, unmounted after the test; false (the test skipped) where mounting needs root. */
function mountForTest(t: TestContext, dir: string, size: string): boolean {
  const problem = mountTmpfs(dir, size);
  if (problem !== undefined) {
    t.skip(problem);
    return false;
  }
  t.after(() => unmountTmpfs(dir));
  return true;
}

test('a full disk takes its log dir offline with KAFKA_STORAGE_ERROR; the other dir continues; reopen recovers', (t) => {
  const small = join(root.path, 'tmpfs');
  const big = join(root.path, 'disk');
  if (!mountForTest(t, small, '2m')) return;
  const config = { 'segment.index.bytes': 64 * 1024 };
  // Space an operator can free after the disk fills.
  writeFileSync(join(small, 'reserve'), Buffer.alloc(256 * 1024, 1));
  let manager = LogManager.open({ logDirs: [small, big] });
  const onSmall = manager.getOrCreateLog({ topic: 'a', partition: 0 }, { config });
  const onBig = manager.getOrCreateLog({ topic: 'b', partition: 0 }, { config });
  assert.equal(onSmall.logDir.path, small);
  const acked: number[] = [];
  let failure: unknown = null;
  for (let i = 0; i < 10_000 && failure === null; i++) {
    try {
      acked.push(onSmall.append(producedBatch(1, 16 * 1024, Date.now(), i), { leaderEpoch: 0 }).baseOffset);
    } catch (e) {
      failure = e;
    }
  }
  assert.ok(isStorageError(failure), `expected KAFKA_STORAGE_ERROR, got ${String(failure)}`);
  assert.equal(onSmall.logDir.online, false);
  assert.throws(() => onSmall.append(producedBatch(1, 10, Date.now()), { leaderEpoch: 0 }), isStorageError);
  assert.throws(() => onSmall.read(offsetOf(0), 100), isStorageError);
  assert.equal(onSmall.logEndOffset, acked.length, 'the failed write is not counted');
  onBig.append(producedBatch(1, 10, Date.now()), { leaderEpoch: 0 });
  assert.equal(onBig.logEndOffset, 1);
  assert.equal(manager.getOrCreateLog({ topic: 'c', partition: 0 }).logDir.path, big, 'new partitions avoid the offline dir');
  manager.close();

  // Free space and reopen: recovery keeps every acknowledged batch and appends work again.
  unlinkSync(join(small, 'reserve'));
  manager = LogManager.open({ logDirs: [small, big] });
  const reopened = manager.getLog({ topic: 'a', partition: 0 })!;
  assert.ok(reopened.logDir.online);
  assert.equal(reopened.logEndOffset, acked.length);
  for (const offset of [0, Math.floor(acked.length / 2), acked.length - 1]) {
    assert.equal(reopened.readBuffer(offsetOf(offset), 1).readBigInt64BE(0), BigInt(offset));
  }
  assert.equal(reopened.append(producedBatch(1, 10, Date.now()), { leaderEpoch: 0 }).baseOffset, acked.length);
  manager.close();
  rmSync(join(small, 'a-0'), { recursive: true, force: true });
});

test('an index append onto a full disk fails with an I/O error instead of SIGBUS on a page of the sparse file', (t) => {
  const dir = join(root.path, 'index-tmpfs');
  if (!mountForTest(t, dir, '1m')) return;
  // Preallocated (sparse) to 512 KiB; the first append backs the first 64 KiB of it.
  const index = new OffsetIndex(join(dir, '00000000000000000000.index'), offsetOf(0), 512 * 1024, true);
  index.append(offsetOf(0), positionOf(0));
  fillUntilFull(join(dir, 'filler'));
  let failure: unknown = null;
  for (let i = 1; i < 65_536 && failure === null; i++) {
    try {
      index.append(offsetOf(i), positionOf(i * 100));
    } catch (e) {
      failure = e;
    }
  }
  assert.ok(isIoError(failure), `expected an I/O error, got ${String(failure)}`);
  assert.equal(index.entries, 8192, 'every entry on backed pages was written; the next one failed');
  index.close();
});

test('injected EIO at named points: the dir goes offline, nothing acknowledged is lost', () => {
  for (const point of ['append.beforeWrite', 'append.afterWrite', 'index.append', 'segment.roll'] as const) {
    const dir = join(root.path, point);
    let manager = LogManager.open({ logDirs: [dir] });
    const log = manager.getOrCreateLog({ topic: 'x', partition: 0 }, { config: { 'segment.bytes': 4000, 'index.interval.bytes': 100 } });
    for (let i = 0; i < 10; i++) log.append(producedBatch(1, 300, Date.now(), i), { leaderEpoch: 0 });
    Faults.arm(point, { errno: 'EIO', times: 1 });
    let failed = false;
    for (let i = 0; i < 20 && !failed; i++) {
      try {
        log.append(producedBatch(1, 300, Date.now(), i), { leaderEpoch: 0 });
      } catch (e) {
        assert.ok(isStorageError(e), `${point}: ${String(e)}`);
        failed = true;
      }
    }
    Faults.disarmAll();
    assert.ok(failed, `${point} fired`);
    const end = log.logEndOffset;
    manager.close();
    manager = LogManager.open({ logDirs: [dir] });
    const reopened = manager.getLog({ topic: 'x', partition: 0 })!;
    assert.ok(reopened.logEndOffset >= end, `${point}: ${reopened.logEndOffset} < ${end}`);
    for (let o = 0; o < end; o++) assert.equal(reopened.readBuffer(offsetOf(o), 1).readBigInt64BE(0), BigInt(o));
    manager.close();
  }
});
