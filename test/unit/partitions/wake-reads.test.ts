/**
 * Parked consumer fetches answered from the append that wakes them, over real partition workers
 * (two threads, real logs in a temp dir): the append carries the parked reads to the worker,
 * which reads right after appending when the high watermark moved, and the results wake the
 * fetch with them. Broker 1 is this broker; broker 2 a follower that exists only in the states.
 */
import { leaderEpochOf, offsetOf } from '@sluice/protocol/common/offsets.js';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PartitionRegistration } from '../../../src/metadata/metadata-image.js';
import { Logger } from '../../../src/common/logger.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { FetchPurgatory, type Wake } from '../../../src/partitions/fetch-purgatory.js';
import { purgatoryEvents } from '../../../src/partitions/partition-events.js';
import { ProducePurgatory } from '../../../src/partitions/produce-purgatory.js';
import { PartitionService } from '../../../src/partitions/partition-service.js';
import type { ReadCommand } from '../../../src/partitions/partition-protocol.js';
import { PartitionWorkerHost } from '../../../src/worker-pool/partition-worker-host.js';
import { producedBatch } from '../storage/storage-fixtures.js';
import { PARTITION_OPS_MODULE, testWorkerOptions } from './worker-options-fixture.js';
import { topicPartitionKey } from '@sluice/protocol/common/topic-partition.js';

const dir = mkdtempSync(join(tmpdir(), 'sluice-wake-reads-'));
const fetches = new FetchPurgatory();
let service: PartitionService;

before(async () => {
  const moduleOptions = testWorkerOptions([dir]);
  const host = await PartitionWorkerHost.start({ opModule: PARTITION_OPS_MODULE, workers: 2, moduleOptions });
  const produces = new ProducePurgatory();
  service = new PartitionService(
    host,
    new Logger('test'),
    purgatoryEvents(fetches, produces, () => undefined),
    moduleOptions.logDirs,
    fetches,
  );
});

after(async () => {
  fetches.wakeAll('shutdown');
  await service.close();
  rmSync(dir, { recursive: true, force: true });
});

let topics = 0;

async function topic(count: number, registration: Partial<PartitionRegistration> = {}): Promise<string> {
  const name = `t${topics++}`;
  const partitions = Array.from({ length: count }, (_, partition) => ({
    partition,
    leader: 1,
    leaderEpoch: 0,
    partitionEpoch: 0,
    replicas: [1],
    isr: [1],
    offlineReplicas: [],
    ...registration,
  }));
  await service.createPartitions({ name, topicId: `AAAAAAAAAAAAAAAAAAAA${String(topics).padStart(2, 'A')}` }, partitions, new Map());
  return name;
}

function consumerRead(topicName: string, partition: number, fetchOffset: bigint | number, maxBytes = 1 << 20): ReadCommand {
  return {
    topic: topicName,
    partition,
    currentLeaderEpoch: leaderEpochOf(-1),
    fetchOffset: offsetOf(fetchOffset),
    maxBytes,
    readCommitted: false,
    minOneMessage: true,
    replicaId: -1,
    lastFetchedEpoch: leaderEpochOf(-1),
  };
}

/** Parks a consumer fetch on `commands`' partitions, with them as its reads. */
function park(commands: readonly ReadCommand[], timeoutMs = 10_000): Promise<Wake> {
  const reads = new Map(commands.map((c) => [topicPartitionKey(c.topic, c.partition), c]));
  return fetches.wait([...reads.keys()], timeoutMs, 'highWatermark', reads);
}

test('an append wakes a parked fetch with the read of what it appended, for each of its partitions it reached', async () => {
  const name = await topic(4);
  const batch = producedBatch(3, 10, 1);
  const woke = park([0, 1, 2, 3].map((p) => consumerRead(name, p, 0n)));
  const replies = await service.appendMany(
    [0, 2].map((partition) => ({ topic: name, partition, requiredAcks: 1, records: producedBatch(3, 10, 1) })),
  );
  assert.deepEqual(
    replies.map((r) => [r.errorCode, r.highWatermark]),
    [
      [ErrorCode.NONE, 3],
      [ErrorCode.NONE, 3],
    ],
  );
  const wake = await woke;
  assert.equal(wake.reason, 'data');
  assert.deepEqual([...wake.reads.keys()].sort(), [topicPartitionKey(name, 0), topicPartitionKey(name, 2)]);
  for (const result of wake.reads.values()) {
    assert.deepEqual([result.errorCode, result.highWatermark, result.records?.byteLength], [ErrorCode.NONE, 3, batch.byteLength]);
    result.records!.release();
  }
  assert.equal(fetches.waiting, 0);
});

test("the read is the parked fetch's own: from its offset, within its max bytes", async () => {
  const name = await topic(1);
  await service.appendMany([{ topic: name, partition: 0, requiredAcks: 1, records: producedBatch(2, 10, 1) }]);
  const second = producedBatch(2, 10, 1);
  const woke = park([consumerRead(name, 0, 2n, 1)]);
  await service.appendMany([{ topic: name, partition: 0, requiredAcks: 1, records: second }]);
  const result = (await woke).reads.get(topicPartitionKey(name, 0))!;
  assert.equal(result.records?.byteLength, second.byteLength, 'the first batch at its offset, whole despite max bytes 1 (KIP-74)');
  assert.equal(result.highWatermark, 4);
  result.records.release();
});

test('an append that leaves the high watermark behind reads nothing and wakes no consumer', async () => {
  const name = await topic(1, { replicas: [1, 2], isr: [1, 2] });
  const woke = park([consumerRead(name, 0, 0n)], 300);
  const [reply] = await service.appendMany([{ topic: name, partition: 0, requiredAcks: -1, records: producedBatch(1, 10, 1) }]);
  assert.equal(reply!.highWatermarkMoved, false);
  assert.equal(reply!.wakeReads.length, 0);
  const wake = await woke;
  assert.deepEqual([wake.reason, wake.reads.size], ['timeout', 0]);
});

test('appends with no fetch parked with reads carry none', async () => {
  const name = await topic(1);
  const woke = fetches.wait([topicPartitionKey(name, 0)], 10_000);
  const [reply] = await service.appendMany([{ topic: name, partition: 0, requiredAcks: 1, records: producedBatch(1, 10, 1) }]);
  assert.equal(reply!.wakeReads.length, 0);
  const wake = await woke;
  assert.deepEqual([wake.reason, wake.reads.size], ['data', 0], 'woken to read for itself');
});
