/**
 * Transactions through the partition workers, end to end on real logs: WriteTxnMarkers' markers
 * written by the leaders (replies in entry order, failures as codes, appends announced),
 * read_committed reads bounded by the last stable offset with the aborted transactions they
 * overlap, ListOffsets' LATEST by isolation level, and DescribeProducers' live transaction start.
 */
import { leaderEpochOf, offsetOf } from '@sluice/protocol/common/offsets.js';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '../../../src/common/logger.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { encodeRecordBatch } from '@sluice/protocol/records/index.js';
import type { PartitionEvents } from '../../../src/partitions/partition-events.js';
import { PartitionService } from '../../../src/partitions/partition-service.js';
import type { ReadCommand, TxnMarkerEntry } from '../../../src/partitions/partition-protocol.js';
import { PartitionWorkerHost } from '../../../src/worker-pool/partition-worker-host.js';
import { PARTITION_OPS_MODULE, testWorkerOptions } from './worker-options-fixture.js';

const SELF = 1;
const TOPIC = 'txn';
const LATEST = -1n;

const appended: string[] = [];
const events: PartitionEvents = {
  appended: (topic, partition, highWatermark) => appended.push(`${topic}-${partition}@${highWatermark}`),
  highWatermarkMoved: () => undefined,
  stateApplied: () => undefined,
  acksCompleted: () => undefined,
  workerLost: () => undefined,
  isrProposed: () => undefined,
};

const dir = mkdtempSync(join(tmpdir(), 'sluice-txn-markers-'));
let service: PartitionService;

before(async () => {
  const moduleOptions = testWorkerOptions([dir]);
  const host = await PartitionWorkerHost.start({ opModule: PARTITION_OPS_MODULE, workers: 2, moduleOptions });
  service = new PartitionService(host, new Logger('test'), events, moduleOptions.logDirs);
  const partitions = [0, 1, 2].map((partition) => ({
    partition,
    leader: SELF,
    leaderEpoch: 0,
    partitionEpoch: 0,
    replicas: [SELF],
    isr: [SELF],
    offlineReplicas: [],
  }));
  await service.createPartitions({ name: TOPIC, topicId: 'AAAAAAAAAAAAAAAAAAAAAA' }, partitions, new Map());
});

after(async () => {
  await service.close();
  rmSync(dir, { recursive: true, force: true });
});

const txnData = (producerId: bigint): Buffer =>
  encodeRecordBatch({
    producerId,
    producerEpoch: 0,
    baseSequence: 0,
    isTransactional: true,
    records: [{ key: null, value: Buffer.from('v'), timestamp: 1n }],
  });

const marker = (partition: number, producerId: bigint, commit: boolean, coordinatorEpoch = 1): TxnMarkerEntry => ({
  topic: TOPIC,
  partition,
  producerId,
  producerEpoch: 0,
  coordinatorEpoch,
  commit,
  transactionVersion: 0,
});

function committedRead(partition: number, fetchOffset = 0): ReadCommand {
  return {
    topic: TOPIC,
    partition,
    currentLeaderEpoch: leaderEpochOf(-1),
    fetchOffset: offsetOf(fetchOffset),
    maxBytes: 1 << 20,
    readCommitted: true,
    minOneMessage: true,
    replicaId: -1,
    lastFetchedEpoch: leaderEpochOf(-1),
  };
}

async function read(commands: ReadCommand[]) {
  return (await service.readMany(commands)).map(({ records, ...rest }) => {
    records?.release();
    return { ...rest, bytes: records?.byteLength ?? 0 };
  });
}

test('markers commit and abort; read_committed reads, ListOffsets and DescribeProducers follow', async () => {
  const entries = [0, 1].map((partition) => ({ topic: TOPIC, partition, requiredAcks: 1, records: txnData(BigInt(10 + partition)) }));
  // Each batch opens its producer's transaction: the partition asks for verification first (KIP-890).
  const unverified = await service.appendMany(entries);
  assert.deepEqual(
    unverified.map((r) => r.needsVerification),
    [true, true],
  );
  const data = await service.appendMany(entries.map((e) => ({ ...e, txnVerified: true })));
  assert.deepEqual(
    data.map((r) => r.errorCode),
    [ErrorCode.NONE, ErrorCode.NONE],
  );
  appended.length = 0;

  const open = await read([committedRead(0)]);
  assert.deepEqual([open[0]!.lastStableOffset, open[0]!.highWatermark, open[0]!.bytes, open[0]!.abortedTransactions], [0, 1, 0, []]);
  assert.equal((await service.listOffset({ topic: TOPIC, partition: 0 }, leaderEpochOf(-1), LATEST, true)).offset, 0);
  assert.equal((await service.listOffset({ topic: TOPIC, partition: 0 }, leaderEpochOf(-1), LATEST)).offset, 1);
  // By time, a record counts only below the isolation level's bound (Kafka).
  assert.equal((await service.listOffset({ topic: TOPIC, partition: 0 }, leaderEpochOf(-1), 0n, true)).offset, -1);
  assert.equal((await service.listOffset({ topic: TOPIC, partition: 0 }, leaderEpochOf(-1), 0n)).offset, 0);
  assert.equal((await service.describeProducers({ topic: TOPIC, partition: 0 })).producers[0]!.currentTxnStartOffset, 0);

  const replies = await service.writeTxnMarkers([
    marker(0, 10n, true),
    { ...marker(0, 10n, true), topic: 'missing' },
    marker(1, 11n, false),
  ]);
  assert.deepEqual(
    replies.map((r) => [r.errorCode, r.baseOffset, r.highWatermark, r.highWatermarkMoved, r.leaderEpoch]),
    [
      [ErrorCode.NONE, 1, 2, true, 0],
      [ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, -1, -1, false, -1],
      [ErrorCode.NONE, 1, 2, true, 0],
    ],
  );
  assert.deepEqual(appended.sort(), [`${TOPIC}-0@2`, `${TOPIC}-1@2`], 'markers wake fetches as appends do');
  assert.equal((await service.describeProducers({ topic: TOPIC, partition: 0 })).producers[0]!.currentTxnStartOffset, -1);

  const [committed, aborted] = await read([committedRead(0), committedRead(1)]);
  assert.deepEqual([committed!.lastStableOffset, committed!.abortedTransactions], [2, []]);
  assert.ok(committed!.bytes > 0);
  assert.deepEqual([aborted!.lastStableOffset, aborted!.abortedTransactions], [2, [{ producerId: 11n, firstOffset: 0 }]]);
  const uncommitted = await read([{ ...committedRead(1), readCommitted: false }]);
  assert.equal(uncommitted[0]!.abortedTransactions, null);
  assert.equal((await service.listOffset({ topic: TOPIC, partition: 1 }, leaderEpochOf(-1), LATEST, true)).offset, 2);

  const fenced = await service.writeTxnMarkers([marker(2, 12n, true, 5), marker(2, 12n, true, 4)]);
  assert.deepEqual(
    fenced.map((r) => r.errorCode),
    [ErrorCode.NONE, ErrorCode.TRANSACTION_COORDINATOR_FENCED],
  );
});
