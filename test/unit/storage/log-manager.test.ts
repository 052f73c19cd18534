import { test } from 'node:test';
import { leaderEpochOf, offsetOf } from '@sluice/protocol/common/offsets.js';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CheckpointFile,
  PARTITION_OFFSET_FORMAT,
  EPOCH_ENTRY_FORMAT,
  CorruptCheckpointError,
} from '../../../src/storage/checkpoint/checkpoint-file.js';
import { readPartitionMetadata } from '../../../src/storage/checkpoint/partition-metadata-file.js';
import { LogManager, writeLogDirCheckpoints } from '../../../src/storage/log/log-manager.js';
import { hasCleanShutdownMarker, writeCleanShutdownMarker } from '../../../src/storage/log/clean-shutdown-marker.js';
import { FakeClock, producedBatch, tempDir } from './storage-fixtures.js';
import { idempotentBatch } from './producer-state/producer-fixtures.js';

const root = tempDir('manager');
process.on('exit', root.remove);

test("checkpoint files round trip in Kafka's text format and refuse malformed ones", () => {
  const file = new CheckpointFile(join(root.path, 'recovery-point-offset-checkpoint'), PARTITION_OFFSET_FORMAT);
  assert.equal(file.read(), null);
  file.write([
    { topic: 'a-b', partition: 3, offset: 42 },
    { topic: 'c', partition: 0, offset: 0 },
  ]);
  assert.equal(readFileSync(file.path, 'utf8'), '0\n2\na-b 3 42\nc 0 0\n');
  assert.deepEqual(file.read(), [
    { topic: 'a-b', partition: 3, offset: 42 },
    { topic: 'c', partition: 0, offset: 0 },
  ]);
  const epochs = new CheckpointFile(join(root.path, 'leader-epoch-checkpoint'), EPOCH_ENTRY_FORMAT);
  epochs.write(
    [
      { epoch: leaderEpochOf(0), startOffset: offsetOf(0) },
      { epoch: leaderEpochOf(4), startOffset: offsetOf(100) },
    ],
    false,
  );
  assert.equal(readFileSync(epochs.path, 'utf8'), '0\n2\n0 0\n4 100\n');
  assert.deepEqual(epochs.read(), [
    { epoch: 0, startOffset: 0 },
    { epoch: 4, startOffset: 100 },
  ]);
  writeFileSync(file.path, '0\n3\na 0 1\n');
  assert.throws(() => file.read(), CorruptCheckpointError);
  writeFileSync(file.path, '1\n0\n');
  assert.throws(() => file.read(), CorruptCheckpointError);
});

test('log manager: placement by fewest partitions, checkpoints, clean-shutdown marker, reopen', () => {
  const dirs = [join(root.path, 'd1'), join(root.path, 'd2')];
  const clock = new FakeClock();
  const manager = LogManager.open({ logDirs: dirs, clock: clock.now, nodeId: 1, clusterId: 'abcdefghijklmnopqrstuv' });
  const logs = [0, 1, 2, 3].map((p) => manager.getOrCreateLog({ topic: 'orders', partition: p }, { topicId: 'AAAAAAAAAAAAAAAAAAAAAQ' }));
  assert.deepEqual(
    dirs.map((d) => readdirSync(d).filter((n) => n.startsWith('orders-')).length),
    [2, 2],
  );
  for (const log of logs) {
    log.append(producedBatch(2, 50, clock.nowMs), { leaderEpoch: 1 });
    log.highWatermark = log.logEndOffset;
  }
  logs[1]!.deleteRecordsTo(offsetOf(1));
  assert.equal(readPartitionMetadata(logs[0]!.dir), 'AAAAAAAAAAAAAAAAAAAAAQ');
  assert.equal(readFileSync(join(logs[0]!.dir, 'partition.metadata'), 'utf8'), 'version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAQ');
  manager.close();
  for (const d of dirs) {
    assert.ok(existsSync(join(d, '.kafka_cleanshutdown')));
    assert.match(
      readFileSync(join(d, 'meta.properties'), 'utf8'),
      /cluster.id=abcdefghijklmnopqrstuv\ndirectory.id=\S+\nnode.id=1\nversion=1\n/,
    );
    for (const f of [
      'recovery-point-offset-checkpoint',
      'log-start-offset-checkpoint',
      'replication-offset-checkpoint',
      'cleaner-offset-checkpoint',
    ]) {
      assert.ok(existsSync(join(d, f)), f);
    }
  }
  const lso = new CheckpointFile(join(logs[1]!.logDir.path, 'log-start-offset-checkpoint'), PARTITION_OFFSET_FORMAT).read()!;
  assert.ok(lso.some((e) => e.topic === 'orders' && e.partition === 1 && e.offset === 1));
  const again = LogManager.open({ logDirs: dirs, clock: clock.now });
  for (const d of dirs) assert.ok(!existsSync(join(d, '.kafka_cleanshutdown')), 'marker removed once loaded');
  assert.equal(again.getLog({ topic: 'orders', partition: 1 })!.logStartOffset, 1);
  assert.equal(again.getLog({ topic: 'orders', partition: 3 })!.logEndOffset, 2);
  assert.equal(again.getLog({ topic: 'orders', partition: 3 })!.highWatermark, 2);
  again.deleteLog({ topic: 'orders', partition: 3 });
  assert.equal(again.getLog({ topic: 'orders', partition: 3 }), undefined);
  clock.advance(120_000);
  again.maintain();
  assert.ok(dirs.every((d) => !readdirSync(d).some((n) => n.startsWith('orders-3'))));
  again.close();
});

test('managers sharing log dirs: each loads only its partitions; the caller merges checkpoints and markers', () => {
  const dirs = [join(root.path, 's1')];
  const clock = new FakeClock();
  const even = (tp: { partition: number }): boolean => tp.partition % 2 === 0;
  const open = (owns: (tp: { partition: number }) => boolean, clean: boolean): LogManager =>
    LogManager.open({ logDirs: dirs, clock: clock.now, owns, shared: { cleanShutdownDirs: new Set(clean ? dirs : []) } });
  const first = [open(even, false), open((tp) => !even(tp), false)];
  for (let p = 0; p < 4; p++) {
    const log = first[p % 2]!.getOrCreateLog({ topic: 'shared', partition: p });
    log.append(producedBatch(p + 1, 20, clock.nowMs), { leaderEpoch: 0 });
    log.highWatermark = log.logEndOffset;
  }
  assert.throws(() => first[0]!.getOrCreateLog({ topic: 'shared', partition: 1 }), /another log manager/);
  for (const m of first) m.close();
  assert.ok(!existsSync(join(dirs[0]!, '.kafka_cleanshutdown')), 'a shared manager writes no marker');
  assert.ok(!existsSync(join(dirs[0]!, 'replication-offset-checkpoint')), 'nor checkpoint files');
  const shares = first.map((m) => m.checkpointEntries()[0]!);
  writeLogDirCheckpoints(...shares);
  writeCleanShutdownMarker(dirs[0]!);
  const hw = new CheckpointFile(join(dirs[0]!, 'replication-offset-checkpoint'), PARTITION_OFFSET_FORMAT).read()!;
  assert.deepEqual(hw.map((e) => [e.partition, e.offset]).sort(), [
    [0, 1],
    [1, 2],
    [2, 3],
    [3, 4],
  ]);

  assert.ok(hasCleanShutdownMarker(dirs[0]!));
  const second = [open(even, true), open((tp) => !even(tp), true)];
  assert.ok(hasCleanShutdownMarker(dirs[0]!), 'the caller, not a shared manager, removes the marker');
  assert.deepEqual([...second[0]!.logs()].map((l) => l.topicPartition.partition).sort(), [0, 2]);
  assert.deepEqual([...second[1]!.logs()].map((l) => l.topicPartition.partition).sort(), [1, 3]);
  assert.equal(second[1]!.getLog({ topic: 'shared', partition: 3 })!.logEndOffset, 4);
  for (const m of second) m.close();
});

test('an entry that vanishes or dangles while a log dir is listed does not take the dir offline', () => {
  // Workers sharing a log dir each remove their own `-delete` directories at open; the others
  // must not trip over one that disappears under them. A dangling symlink is the same case
  // frozen in time: listed, but gone when looked at.
  const dir = join(root.path, 'shared');
  const first = LogManager.open({ logDirs: [dir], nodeId: 1, clusterId: 'abcdefghijklmnopqrstuv' });
  first.getOrCreateLog({ topic: 'kept', partition: 0 }, { topicId: 'AAAAAAAAAAAAAAAAAAAAAQ' });
  first.close();
  symlinkSync(join(dir, 'nowhere'), join(dir, 'gone-0.0123456789abcdef0123456789abcdef-delete'));
  symlinkSync(join(dir, 'nowhere-either'), join(dir, 'gone-1'));
  const again = LogManager.open({ logDirs: [dir], nodeId: 1, clusterId: 'abcdefghijklmnopqrstuv' });
  try {
    assert.deepEqual(
      again.logDirs.map((d) => d.online),
      [true],
    );
    assert.notEqual(again.getLog({ topic: 'kept', partition: 0 }), undefined);
  } finally {
    again.close();
  }
});

test('maintain forgets idle producers every producer.id.expiration.check.interval.ms, not on every call', () => {
  const clock = new FakeClock();
  const manager = LogManager.open({
    logDirs: [join(root.path, 'expiry')],
    clock: clock.now,
    producerIdExpirationMs: 1_000,
    producerIdExpirationCheckIntervalMs: 10_000,
  });
  const log = manager.getOrCreateLog({ topic: 'expiry', partition: 0 });
  log.append(idempotentBatch({ producerId: 7n, epoch: 0, sequence: 0, count: 1, timestamp: clock.nowMs }), { leaderEpoch: 0 });
  clock.advance(9_999);
  manager.maintain();
  assert.deepEqual([...log.activeProducers().keys()], [7n], 'past its expiration, the producer stays until the next check');
  clock.advance(1);
  manager.maintain();
  assert.deepEqual([...log.activeProducers().keys()], []);
  manager.close();
});
