/**
 * AlterReplicaLogDirs through `PartitionService` over real partition workers (two threads, two
 * log dirs): Kafka's per-partition answers, the preferred dir of a partition not created yet, a
 * move that DescribeLogDirs shows as a future replica while appends go on, the replica's state
 * (leader epoch, high watermark) kept across the swap, and an offline dir refused.
 */
import { offsetOf, leaderEpochOf } from '@sluice/protocol/common/offsets.js';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PartitionRegistration } from '../../../src/metadata/metadata-image.js';
import { Logger } from '../../../src/common/logger.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { PartitionService } from '../../../src/partitions/partition-service.js';
import { PartitionWorkerHost } from '../../../src/worker-pool/partition-worker-host.js';
import { decodeBatches, producedBatch } from '../storage/storage-fixtures.js';
import { PARTITION_OPS_MODULE, testWorkerOptions } from './worker-options-fixture.js';

const SELF = 1;
/** Slow enough that a move of a few hundred kilobytes is seen under way (each of the two workers has half). */
const MOVE_BYTES_PER_SECOND = 800_000;
const root = mkdtempSync(join(tmpdir(), 'sluice-log-dir-moves-'));
const dirs = [join(root, 'a'), join(root, 'b')];
let service: PartitionService;
const quiet = { appended() {}, highWatermarkMoved() {}, stateApplied() {}, acksCompleted() {}, workerLost() {}, isrProposed() {} };

before(async () => {
  const moduleOptions = testWorkerOptions(dirs, { logDirMoveBytesPerSecond: MOVE_BYTES_PER_SECOND });
  const host = await PartitionWorkerHost.start({ opModule: PARTITION_OPS_MODULE, workers: 2, moduleOptions });
  service = new PartitionService(host, new Logger('test'), quiet, moduleOptions.logDirs);
});

after(async () => {
  await service.close();
  rmSync(root, { recursive: true, force: true });
});

function registration(partition: number, leaderEpoch = 0): PartitionRegistration {
  return { partition, leader: SELF, leaderEpoch, partitionEpoch: 0, replicas: [SELF], isr: [SELF], offlineReplicas: [] };
}

async function create(name: string, partitions: number): Promise<void> {
  await service.createPartitions(
    { name, topicId: 'AAAAAAAAAAAAAAAAAAAAAQ' },
    Array.from({ length: partitions }, (_, p) => registration(p, 3)),
    new Map(),
  );
}

/** Where DescribeLogDirs puts each partition of `topic`: `dir:partition[:future]`. */
async function placement(topic: string): Promise<string[]> {
  const out: string[] = [];
  for (const dir of await service.describeLogDirs()) {
    for (const p of dir.partitions.filter((p) => p.topic === topic))
      out.push(`${dir.path === dirs[0] ? 'a' : 'b'}:${p.partition}${p.isFuture ? ':future' : ''}`);
  }
  return out.sort();
}

test("Kafka's answers: an unknown dir, a long topic name, a partition not hosted here (whose dir is remembered for its creation)", async () => {
  await create('answers', 1);
  // `<topic>-0.<32 hex>-future` must fit in 255 characters.
  const long = 'x'.repeat(255 - '-0'.length - '.-future'.length - 32 + 1);
  const codes = await service.alterReplicaLogDirs([
    { topic: 'answers', partition: 0, path: '/not/a/log/dir' },
    { topic: long, partition: 0, path: dirs[0]! },
    { topic: 'later', partition: 0, path: dirs[1]! },
    { topic: 'later', partition: 1, path: dirs[0]! },
  ]);
  assert.deepEqual(codes, [
    ErrorCode.LOG_DIR_NOT_FOUND,
    ErrorCode.INVALID_TOPIC_EXCEPTION,
    ErrorCode.REPLICA_NOT_AVAILABLE,
    ErrorCode.REPLICA_NOT_AVAILABLE,
  ]);
  await create('later', 2);
  assert.deepEqual(await placement('later'), ['a:1', 'b:0']);
});

test('a partition moves to the other log dir while appends go on; DescribeLogDirs shows the future replica; reads, epoch and high watermark carry over', async () => {
  await create('moving', 1);
  // Large batches before the move, small ones during it (slower than the move's copy rate).
  const append = (seed: number, valueBytes = 100) =>
    service.appendMany([{ topic: 'moving', partition: 0, requiredAcks: -1, records: producedBatch(10, valueBytes, Date.now(), seed) }]);
  let seed = 0;
  for (; seed < 40; seed++) assert.equal((await append(seed, 1000))[0]!.errorCode, ErrorCode.NONE);
  const [from] = await placement('moving');
  const target = from!.startsWith('a') ? dirs[1]! : dirs[0]!;
  assert.deepEqual(await service.alterReplicaLogDirs([{ topic: 'moving', partition: 0, path: target }]), [ErrorCode.NONE]);
  let sawFuture = false;
  for (let i = 0; ; i++) {
    assert.ok(i < 600, 'the move completes');
    const reply = (await append(seed++))[0]!;
    assert.equal(reply.errorCode, ErrorCode.NONE, 'appends go on during the move');
    assert.equal(reply.leaderEpoch, 3);
    const where = await placement('moving');
    if (where.some((w) => w.endsWith(':future'))) {
      sawFuture = true;
      // The move may complete between the two questions.
      const future = (await service.describeLogDirs()).flatMap((d) => d.partitions).find((p) => p.isFuture);
      if (future !== undefined) assert.ok(future.offsetLag > 0n);
    }
    if (where.length === 1 && where[0] !== from) break;
    // Fixed on purpose: paces the appends below the move's copy rate, so that the move catches up while they go on.
    await sleep(20);
  }
  assert.ok(sawFuture, 'the future replica was seen while it caught up');
  assert.ok(readdirSync(target).includes('moving-0'));
  const after = (await append(seed++))[0]!;
  assert.deepEqual([after.errorCode, after.leaderEpoch, after.baseOffset], [ErrorCode.NONE, 3, (seed - 1) * 10]);
  assert.equal(after.highWatermark, seed * 10, 'the high watermark follows the moved log');
  const values: number[] = [];
  for (let offset = 0n; offset < BigInt(seed * 10);) {
    const [r] = await service.readMany([
      {
        topic: 'moving',
        partition: 0,
        currentLeaderEpoch: leaderEpochOf(3),
        fetchOffset: offsetOf(offset),
        maxBytes: 1 << 20,
        readCommitted: false,
        minOneMessage: true,
        replicaId: -1,
        lastFetchedEpoch: leaderEpochOf(-1),
      },
    ]);
    assert.equal(r!.errorCode, ErrorCode.NONE);
    const region = r!.records!;
    const bytes = Buffer.alloc(region.byteLength);
    readSync(region.fd, bytes, 0, region.byteLength, region.position);
    region.release();
    for (const b of decodeBatches(bytes)) for (let i = b.baseOffset; i <= b.lastOffset; i++) if (i >= offset) values.push(i);
    offset = BigInt(values.length);
  }
  assert.deepEqual(
    values,
    Array.from({ length: seed * 10 }, (_, i) => i),
    'every appended record is read back, in order',
  );
});

test('a move to an offline log dir is KAFKA_STORAGE_ERROR; the dir is described with that error', async () => {
  await create('stays', 1);
  await service.takeLogDirOffline(dirs[1]!, 'test');
  const [code] = await service.alterReplicaLogDirs([{ topic: 'stays', partition: 0, path: dirs[1]! }]);
  assert.equal(code, ErrorCode.KAFKA_STORAGE_ERROR);
  const described = await service.describeLogDirs();
  assert.deepEqual(
    described.map((d) => [d.path, d.errorCode]),
    [
      [dirs[0], ErrorCode.NONE],
      [dirs[1], ErrorCode.KAFKA_STORAGE_ERROR],
    ],
  );
});
