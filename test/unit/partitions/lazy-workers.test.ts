/**
 * `PartitionService` over workers the host starts on their first request (two threads, two log
 * dirs, nothing on disk): what goes to every worker (log dirs, metrics, checkpoints, ISR
 * proposals, close) starts none of them and answers as for workers without logs; opening a
 * partition starts its owner, which learns the log dirs taken offline before it started.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '../../../src/common/logger.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { PartitionService } from '../../../src/partitions/partition-service.js';
import { CLEAN_SHUTDOWN_FILE } from '../../../src/storage/file-names.js';
import { PartitionWorkerHost } from '../../../src/worker-pool/partition-worker-host.js';
import { workerForPartition } from '../../../src/worker-pool/partition-routing.js';
import { producedBatch } from '../storage/storage-fixtures.js';
import { PARTITION_OPS_MODULE, testWorkerOptions } from './worker-options-fixture.js';

const SELF = 1;
const quiet = { appended() {}, highWatermarkMoved() {}, stateApplied() {}, acksCompleted() {}, workerLost() {}, isrProposed() {} };

async function lazyService(): Promise<{ service: PartitionService; host: PartitionWorkerHost; dirs: string[]; remove(): void }> {
  const root = mkdtempSync(join(tmpdir(), 'sluice-lazy-workers-'));
  // Formatted, as the broker's are before its workers start.
  const dirs = [join(root, 'a'), join(root, 'b')];
  for (const dir of dirs) mkdirSync(dir);
  const moduleOptions = testWorkerOptions(dirs);
  const host = await PartitionWorkerHost.start({ opModule: PARTITION_OPS_MODULE, workers: 2, moduleOptions, startOwnersOf: [] });
  const service = new PartitionService(host, new Logger('test'), quiet, dirs);
  return { service, host, dirs, remove: () => rmSync(root, { recursive: true, force: true }) };
}

/** A partition of `topic` owned by `worker` (of 2). */
function partitionOn(topic: string, worker: number): number {
  return [0, 1].find((p) => workerForPartition(topic, p, 2) === worker)!;
}

async function open(service: PartitionService, topic: string, partition: number): Promise<void> {
  const state = { partition, leader: SELF, leaderEpoch: 0, partitionEpoch: 0, replicas: [SELF], isr: [SELF], offlineReplicas: [] };
  await service.createPartitions({ name: topic, topicId: 'AAAAAAAAAAAAAAAAAAAAAQ' }, [state], new Map());
}

test('broadcasts start no worker and answer as workers without logs; a clean stop with none started writes the markers', async () => {
  const { service, host, dirs, remove } = await lazyService();
  try {
    const described = await service.describeLogDirs();
    assert.deepEqual(
      described.map((d) => [d.path, d.errorCode, d.partitions.length]),
      dirs.map((d) => [d, ErrorCode.NONE, 0]),
    );
    assert.ok(
      described.every((d) => d.totalBytes > 0n && d.usableBytes >= 0n),
      'the sizes of the dirs are read',
    );
    assert.deepEqual(await service.workerMetrics([{ topic: 'none', partition: 0 }]), { snapshots: [], ends: [] });
    assert.deepEqual(await service.isrProposals(), []);
    await service.checkpoint();
    await service.updateTopicConfig({ name: 'none', topicId: '' }, 2, new Map());
    await service.deleteTopic({ name: 'none', topicId: '' }, 2);
    await service.takeLogDirOffline(dirs[1]!, 'test');
    assert.deepEqual(
      (await service.describeLogDirs()).map((d) => d.errorCode),
      [ErrorCode.NONE, ErrorCode.KAFKA_STORAGE_ERROR],
    );
    assert.deepEqual(host.startedWorkers(), []);
    await service.close();
    assert.deepEqual(host.startedWorkers(), []);
    assert.deepEqual(
      dirs.map((d) => existsSync(join(d, CLEAN_SHUTDOWN_FILE))),
      [true, false],
      'the offline dir gets no marker',
    );
  } finally {
    remove();
  }
});

test('opening a partition starts only its owner, which serves it and learns the log dirs taken offline before it started', async () => {
  const { service, host, dirs, remove } = await lazyService();
  try {
    await service.takeLogDirOffline(dirs[1]!, 'test');
    const partition = partitionOn('orders', 1);
    await open(service, 'orders', partition);
    assert.deepEqual(host.startedWorkers(), [1]);
    const [appended] = await service.appendMany([
      { topic: 'orders', partition, requiredAcks: 1, records: producedBatch(3, 10, Date.now()) },
    ]);
    assert.equal(appended!.errorCode, ErrorCode.NONE);
    const described = await service.describeLogDirs();
    assert.deepEqual(
      described.map((d) => [d.errorCode, d.partitions.map((p) => `${p.topic}-${p.partition}`)]),
      [
        [ErrorCode.NONE, [`orders-${partition}`]],
        [ErrorCode.KAFKA_STORAGE_ERROR, []],
      ],
      'the new log went to the online dir',
    );
    const scrape = await service.workerMetrics([{ topic: 'orders', partition }]);
    assert.equal(scrape.snapshots.length, 1);
    assert.deepEqual(scrape.ends, [{ topic: 'orders', partition, highWatermark: 3n }]);
    await service.checkpoint();
    await service.close();
    assert.deepEqual(host.startedWorkers(), [1], 'the other worker never started');
    assert.ok(existsSync(join(dirs[0]!, CLEAN_SHUTDOWN_FILE)));
  } finally {
    remove();
  }
});
