/**
 * ShareFetch (78) and ShareAcknowledge (79) over the in-memory partition owner, with records
 * produced through the Produce handler and the share-partition state in an in-memory share
 * coordinator: acquisition and the records sent for it, acknowledgements piggybacked and alone,
 * share session errors, long polls woken by appends, redelivery after a release or a closing
 * session, RENEW from v2, and Kafka's authorization on the group and the topics.
 */
import { offsetOf } from '@sluice/protocol/common/offsets.js';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { produceHandler } from '../../../src/handlers/00-produce.js';
import { createTopicsHandler } from '../../../src/handlers/19-create-topics.js';
import { shareFetchHandler } from '../../../src/handlers/78-share-fetch.js';
import { shareAcknowledgeHandler } from '../../../src/handlers/79-share-acknowledge.js';
import { describeShareGroupOffsetsHandler } from '../../../src/handlers/90-describe-share-group-offsets.js';
import { wakeShareFetches, type ShareServices } from '../../../src/handlers/share-services.js';
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import * as M from '@sluice/protocol/messages/index.js';
import type { FileRegion } from '@sluice/protocol/primitives/writer.js';
import { AclOperation as Op, PatternType, PermissionType, ResourceType } from '../../../src/security/acl/index.js';
import { batchesIn, type FetchedBatches } from '../../../src/coordinator/share/partition/log-batches.js';
import { DEFAULT_SHARE_PARTITION_CONFIG } from '../../../src/coordinator/share/partition/share-partition-config.js';
import { AcknowledgeType } from '../../../src/coordinator/share/partition/share-partition.js';
import { SharePartitionManager } from '../../../src/coordinator/share/partition/share-partition-manager.js';
import { ShareSessionCache } from '../../../src/coordinator/share/partition/share-session-cache.js';
import { TestSharePersister } from '../../helpers/share-persister.js';
import { ManualTimers } from '../../helpers/manual-lock-timers.js';
import { call, harness, TEST_SESSION, type HeldRegion } from './admin-harness.js';
import { Logger } from '../../../src/common/logger.js';
import { HandlerRegistry } from '../../../src/handlers/registry.js';
import { RequestDispatcher } from '../../../src/handlers/request-dispatcher.js';
import { batch, dataHarnesses, type DataHarness } from './data-harness.js';
import { MemoryPartitions } from './memory-partitions-fixture.js';

const { NONE } = ErrorCode;
const { ACCEPT, RELEASE, REJECT, RENEW } = AcknowledgeType;
const GROUP = 'g';

const fresh = dataHarnesses((d) => assert.equal(d.owner.outstandingLeases, 0, 'every range the owner leased was released'));

/** The in-memory owner's ranges hold their bytes: headers are read from them, slices keep them. */
const heldBatches: FetchedBatches = {
  async read(region, before) {
    return batchesIn((region as HeldRegion).bytes, before);
  },
  slice(region, start, end): HeldRegion & FileRegion {
    const bytes = (region as HeldRegion).bytes.subarray(start, end);
    return { fd: -1, position: 0, byteLength: bytes.length, bytes, release: () => region.release() };
  },
};

interface ShareFixture {
  readonly d: DataHarness;
  readonly persister: TestSharePersister;
  readonly timers: ManualTimers;
  readonly topicId: string;
}

async function setUp(batches: FetchedBatches = heldBatches): Promise<ShareFixture> {
  const persister = new TestSharePersister();
  const timers = new ManualTimers();
  let d: DataHarness | undefined;
  const shares: ShareServices = {
    partitions: new SharePartitionManager(
      persister,
      () => DEFAULT_SHARE_PARTITION_CONFIG,
      timers,
      wakeShareFetches(() => d!.h.cluster),
    ),
    sessions: new ShareSessionCache(10),
    batches,
  };
  // The group coordinator reads the same share coordinator (DescribeShareGroupOffsets).
  d = fresh(new MemoryPartitions(), { shares, sharePersister: persister });
  const topicId = await d.createTopic('t', 2);
  // What the group coordinator does when it assigns the partitions: the share coordinator starts them at offset 0.
  for (const partition of [0, 1]) await persister.initialize({ groupId: GROUP, topicId, partition }, 0, 0n);
  return { d, persister, timers, topicId };
}

async function produce(d: DataHarness, partition: number, values: string[]): Promise<Buffer> {
  const records = batch(values);
  const res = await d.call(produceHandler, M.ProduceRequest, M.ProduceResponse, 9, {
    acks: 1,
    timeoutMs: 1000,
    topicData: [{ name: 't', partitionData: [{ index: partition, records }] }],
  });
  assert.equal(res.responses[0]!.partitionResponses[0]!.errorCode, NONE);
  return records;
}

type Acks = Array<{ partition: number; firstOffset: bigint; lastOffset: bigint; types: number[] }>;

function shareFetch(
  f: ShareFixture,
  memberId: string,
  epoch: number,
  options: { partitions?: number[]; acks?: Acks; maxWaitMs?: number; maxRecords?: number; version?: number; isRenewAck?: boolean } = {},
) {
  const partitions = new Set([...(options.partitions ?? []), ...(options.acks ?? []).map((a) => a.partition)]);
  return f.d.call(shareFetchHandler, M.ShareFetchRequest, M.ShareFetchResponse, options.version ?? 1, {
    groupId: GROUP,
    memberId,
    shareSessionEpoch: epoch,
    maxWaitMs: options.maxWaitMs ?? 0,
    minBytes: 1,
    maxBytes: 1 << 20,
    maxRecords: options.maxRecords ?? 500,
    batchSize: 500,
    isRenewAck: options.isRenewAck ?? false,
    topics: [
      {
        topicId: f.topicId,
        partitions: [...partitions].map((partitionIndex) => ({
          partitionIndex,
          acknowledgementBatches: (options.acks ?? [])
            .filter((a) => a.partition === partitionIndex)
            .map((a) => ({ firstOffset: a.firstOffset, lastOffset: a.lastOffset, acknowledgeTypes: a.types })),
        })),
      },
    ],
  });
}

function shareAcknowledge(f: ShareFixture, memberId: string, epoch: number, acks: Acks, version = 1, isRenewAck = false) {
  return f.d.call(shareAcknowledgeHandler, M.ShareAcknowledgeRequest, M.ShareAcknowledgeResponse, version, {
    groupId: GROUP,
    memberId,
    shareSessionEpoch: epoch,
    isRenewAck,
    topics: [
      {
        topicId: f.topicId,
        partitions: [...new Set(acks.map((a) => a.partition))].map((partitionIndex) => ({
          partitionIndex,
          acknowledgementBatches: acks
            .filter((a) => a.partition === partitionIndex)
            .map((a) => ({ firstOffset: a.firstOffset, lastOffset: a.lastOffset, acknowledgeTypes: a.types })),
        })),
      },
    ],
  });
}

/** Each answered partition: [index, errorCode, acknowledgeErrorCode, acquired ranges, the offsets of the batches sent]. */
function partitionsOf(res: M.ShareFetchResponseData) {
  return res.responses.flatMap((t) =>
    t.partitions.map(
      (p) =>
        [
          p.partitionIndex,
          p.errorCode,
          p.acknowledgeErrorCode,
          p.acquiredRecords.map((r) => [r.firstOffset, r.lastOffset, r.deliveryCount]),
          batchesIn(p.records ?? Buffer.alloc(0)).map((b) => [b.firstOffset, b.lastOffset]),
        ] as const,
    ),
  );
}

describe('ShareFetch and ShareAcknowledge', () => {
  for (const version of [1, 2]) {
    test(`v${version}: a new session acquires the produced records and sends exactly their batches`, async () => {
      const f = await setUp();
      await produce(f.d, 0, ['a', 'b']);
      await produce(f.d, 0, ['c']);
      const res = await shareFetch(f, 'm1', 0, { partitions: [0], version });
      assert.deepEqual([res.errorCode, res.acquisitionLockTimeoutMs], [NONE, 30_000]);
      assert.deepEqual(partitionsOf(res), [
        [
          0,
          NONE,
          NONE,
          [[0n, 2n, 1]],
          [
            [0n, 1n],
            [2n, 2n],
          ],
        ],
      ]);
      assert.deepEqual(res.responses[0]!.partitions[0]!.currentLeader, { leaderId: 0, leaderEpoch: 0 });
    });
  }

  test('maxRecords stops at a batch boundary; the next fetch acquires the rest and sends only its batch', async () => {
    const f = await setUp();
    await produce(f.d, 0, ['a', 'b']);
    await produce(f.d, 0, ['c', 'd']);
    const first = partitionsOf(await shareFetch(f, 'm1', 0, { partitions: [0], maxRecords: 1 }))[0]!;
    assert.deepEqual([first[3], first[4]], [[[0n, 1n, 1]], [[0n, 1n]]], 'only the batch acquired is sent');
    assert.deepEqual(partitionsOf(await shareFetch(f, 'm2', 0, { partitions: [0] })), [[0, NONE, NONE, [[2n, 3n, 1]], [[2n, 3n]]]]);
  });

  test('piggybacked and standalone acknowledgements move the start offset, persisted before the answer', async () => {
    const f = await setUp();
    await produce(f.d, 0, ['a', 'b', 'c']);
    await shareFetch(f, 'm1', 0, { partitions: [0] });
    const piggybacked = await shareFetch(f, 'm1', 1, { acks: [{ partition: 0, firstOffset: 0n, lastOffset: 1n, types: [ACCEPT] }] });
    assert.deepEqual(
      partitionsOf(piggybacked).map((p) => [p[0], p[2], p[3]]),
      [[0, NONE, []]],
    );
    assert.equal((await f.persister.read({ groupId: GROUP, topicId: f.topicId, partition: 0 }, 0)).startOffset, 2n);
    const alone = await shareAcknowledge(f, 'm1', 2, [{ partition: 0, firstOffset: 2n, lastOffset: 2n, types: [ACCEPT] }]);
    assert.deepEqual([alone.errorCode, alone.responses[0]!.partitions.map((p) => [p.partitionIndex, p.errorCode])], [NONE, [[0, NONE]]]);
    assert.equal((await f.persister.read({ groupId: GROUP, topicId: f.topicId, partition: 0 }, 0)).startOffset, 3n);
  });

  test("acknowledging another member's records is INVALID_RECORD_STATE for that partition", async () => {
    const f = await setUp();
    await produce(f.d, 0, ['a']);
    await shareFetch(f, 'm1', 0, { partitions: [0] });
    await shareFetch(f, 'm2', 0, { partitions: [0] });
    const res = await shareAcknowledge(f, 'm2', 1, [{ partition: 0, firstOffset: 0n, lastOffset: 0n, types: [ACCEPT] }]);
    assert.equal(res.responses[0]!.partitions[0]!.errorCode, ErrorCode.INVALID_RECORD_STATE);
    const piggybacked = await shareFetch(f, 'm2', 2, { acks: [{ partition: 1, firstOffset: 0n, lastOffset: 0n, types: [ACCEPT] }] });
    assert.equal(
      partitionsOf(piggybacked).find((p) => p[0] === 1)![2],
      ErrorCode.INVALID_RECORD_STATE,
      'nothing was ever acquired from partition 1',
    );
  });

  test('share session errors are top-level: no session, a wrong epoch, acknowledgements in an opening request', async () => {
    const f = await setUp();
    assert.equal((await shareFetch(f, 'm1', 1, { partitions: [0] })).errorCode, ErrorCode.SHARE_SESSION_NOT_FOUND);
    assert.equal((await shareAcknowledge(f, 'm1', 1, [])).errorCode, ErrorCode.SHARE_SESSION_NOT_FOUND);
    assert.equal(
      (await shareFetch(f, 'm1', 0, { acks: [{ partition: 0, firstOffset: 0n, lastOffset: 0n, types: [ACCEPT] }] })).errorCode,
      ErrorCode.INVALID_REQUEST,
    );
    await shareFetch(f, 'm1', 0, { partitions: [0] });
    assert.equal((await shareFetch(f, 'm1', 3, {})).errorCode, ErrorCode.INVALID_SHARE_SESSION_EPOCH);
    assert.equal((await shareAcknowledge(f, 'm1', 0, [])).errorCode, ErrorCode.INVALID_SHARE_SESSION_EPOCH);
  });

  test('a long poll on an empty partition is answered when records are appended', async () => {
    const f = await setUp();
    const polling = shareFetch(f, 'm1', 0, { partitions: [0], maxWaitMs: 60_000 });
    while (f.d.h.cluster.purgatory.waiting === 0) await new Promise((resolve) => setImmediate(resolve));
    await produce(f.d, 0, ['late']);
    assert.deepEqual(partitionsOf(await polling), [[0, NONE, NONE, [[0n, 0n, 1]], [[0n, 0n]]]]);
  });

  test("a long poll is answered when another member's records are released", async () => {
    const f = await setUp();
    await produce(f.d, 0, ['a']);
    await shareFetch(f, 'm1', 0, { partitions: [0] });
    const polling = shareFetch(f, 'm2', 0, { partitions: [0], maxWaitMs: 120_000 });
    while (f.d.h.cluster.purgatory.waiting === 0) await new Promise((resolve) => setImmediate(resolve));
    await shareAcknowledge(f, 'm1', 1, [{ partition: 0, firstOffset: 0n, lastOffset: 0n, types: [RELEASE] }]);
    assert.deepEqual(partitionsOf(await polling)[0]![3], [[0n, 0n, 2]]);
  });

  test('released records and those of a closed session go to another member with the next delivery count', async () => {
    const f = await setUp();
    await produce(f.d, 0, ['a', 'b']);
    await produce(f.d, 1, ['c']);
    await shareFetch(f, 'm1', 0, { partitions: [0, 1] });
    await shareAcknowledge(f, 'm1', 1, [{ partition: 0, firstOffset: 0n, lastOffset: 0n, types: [RELEASE] }]);
    const closing = await shareFetch(f, 'm1', -1, { acks: [{ partition: 0, firstOffset: 1n, lastOffset: 1n, types: [ACCEPT] }] });
    assert.deepEqual(
      partitionsOf(closing).map((p) => [p[0], p[2], p[3]]),
      [[0, NONE, []]],
      'a closing request fetches nothing',
    );
    const res = await shareFetch(f, 'm2', 0, { partitions: [0, 1] });
    assert.deepEqual(
      partitionsOf(res).map((p) => [p[0], p[3]]),
      [
        [0, [[0n, 0n, 2]]],
        [1, [[0n, 0n, 2]]],
      ],
    );
    assert.equal((await shareFetch(f, 'm1', 1, {})).errorCode, ErrorCode.SHARE_SESSION_NOT_FOUND, 'the closed session is gone');
  });

  test("a closed connection ends its share sessions and releases their members' records", async () => {
    const f = await setUp();
    await produce(f.d, 0, ['a']);
    const connection = { ...TEST_SESSION };
    const opened = await call(
      shareFetchHandler,
      M.ShareFetchRequest,
      M.ShareFetchResponse,
      1,
      {
        groupId: GROUP,
        memberId: 'm1',
        shareSessionEpoch: 0,
        maxRecords: 10,
        topics: [{ topicId: f.topicId, partitions: [{ partitionIndex: 0 }] }],
      },
      f.d.h.cluster,
      f.d.metrics,
      connection,
    );
    assert.deepEqual(partitionsOf(opened)[0]![3], [[0n, 0n, 1]]);
    const dispatcher = new RequestDispatcher(new HandlerRegistry([]), new Logger('test'), f.d.metrics, () => f.d.h.cluster);
    await dispatcher.connectionClosed(TEST_SESSION);
    assert.equal(
      (await shareFetch(f, 'm2', 0, { partitions: [0] })).responses[0]!.partitions[0]!.acquiredRecords.length,
      0,
      'another connection closing changes nothing',
    );
    await dispatcher.connectionClosed(connection);
    assert.deepEqual(partitionsOf(await shareFetch(f, 'm2', 1, {}))[0]![3], [[0n, 0n, 2]]);
    assert.equal((await shareFetch(f, 'm1', 1, {})).errorCode, ErrorCode.SHARE_SESSION_NOT_FOUND);
  });

  test('closing a connection never rejects: before the broker has its cluster, or when the release itself fails', async () => {
    const f = await setUp();
    const early = new RequestDispatcher(new HandlerRegistry([]), new Logger('test'), f.d.metrics, () => undefined);
    await early.connectionClosed(TEST_SESSION);
    const failing = new RequestDispatcher(new HandlerRegistry([]), new Logger('test'), f.d.metrics, () => {
      throw new Error('request served before the cluster metadata was loaded');
    });
    await failing.connectionClosed(TEST_SESSION);
  });

  test('records whose lock expired are delivered again', async () => {
    const f = await setUp();
    await produce(f.d, 0, ['a']);
    await shareFetch(f, 'm1', 0, { partitions: [0] });
    f.timers.expireAll();
    const res = await shareFetch(f, 'm2', 0, { partitions: [0] });
    assert.deepEqual(partitionsOf(res)[0]![3], [[0n, 0n, 2]]);
  });

  test('RENEW is an acknowledge type from v2 only; a renewal ShareFetch acquires nothing new', async () => {
    const f = await setUp();
    await produce(f.d, 0, ['a']);
    await shareFetch(f, 'm1', 0, { partitions: [0], version: 2 });
    const v1 = await shareAcknowledge(f, 'm1', 1, [{ partition: 0, firstOffset: 0n, lastOffset: 0n, types: [RENEW] }], 1);
    assert.equal(v1.responses[0]!.partitions[0]!.errorCode, ErrorCode.INVALID_REQUEST);
    await produce(f.d, 0, ['b']);
    const renewed = await shareFetch(f, 'm1', 2, {
      version: 2,
      isRenewAck: true,
      acks: [{ partition: 0, firstOffset: 0n, lastOffset: 0n, types: [RENEW] }],
    });
    assert.deepEqual(
      partitionsOf(renewed).map((p) => [p[0], p[2], p[3]]),
      [[0, NONE, []]],
    );
    f.timers.expireAll();
    const v2 = await shareAcknowledge(f, 'm1', 3, [{ partition: 0, firstOffset: 0n, lastOffset: 0n, types: [RENEW] }], 2, true);
    assert.equal(v2.responses[0]!.partitions[0]!.errorCode, ErrorCode.INVALID_RECORD_STATE, 'the renewed lock expired in its turn');
  });

  test('records deleted from the log before the start offset are skipped: the share partition starts at the log start', async () => {
    const f = await setUp();
    await produce(f.d, 0, ['a', 'b']);
    await produce(f.d, 0, ['c']);
    await f.d.owner.deleteRecords({ topic: 't', partition: 0 }, offsetOf(2n));
    assert.deepEqual(partitionsOf(await shareFetch(f, 'm1', 0, { partitions: [0] })), [[0, NONE, NONE, [[2n, 2n, 1]], [[2n, 2n]]]]);
  });

  test('a fetched range whose batches cannot be read is released, and the partition answers the error', async () => {
    const corrupt: FetchedBatches = {
      read: async () => {
        throw new KafkaError(ErrorCode.CORRUPT_MESSAGE, 'a batch header is cut short');
      },
      slice: heldBatches.slice,
    };
    const f = await setUp(corrupt);
    await produce(f.d, 0, ['a']);
    assert.deepEqual(partitionsOf(await shareFetch(f, 'm1', 0, { partitions: [0] })), [[0, ErrorCode.CORRUPT_MESSAGE, NONE, [], []]]);
  });

  test('an unknown topic id is UNKNOWN_TOPIC_ID for its partition', async () => {
    const f = await setUp();
    const res = await f.d.call(shareFetchHandler, M.ShareFetchRequest, M.ShareFetchResponse, 1, {
      groupId: GROUP,
      memberId: 'm1',
      shareSessionEpoch: 0,
      maxRecords: 10,
      topics: [{ topicId: 'AAAAAAAAAAAAAAAAAAAAAQ', partitions: [{ partitionIndex: 0 }] }],
    });
    assert.deepEqual(
      partitionsOf(res).map((p) => [p[0], p[1]]),
      [[0, ErrorCode.UNKNOWN_TOPIC_ID]],
    );
  });
});

describe('ShareFetch and ShareAcknowledge authorization', () => {
  const ME = TEST_SESSION.principal;
  const allow = (resourceType: ResourceType, name: string, operation: Op) => ({
    pattern: { resourceType, name, patternType: PatternType.LITERAL },
    entry: { principal: ME, host: '*', operation, permissionType: PermissionType.ALLOW },
  });

  test('DescribeShareGroupOffsets v1: the lag is the records from the start offset to the high watermark not yet acknowledged or archived', async () => {
    const f = await setUp();
    await produce(f.d, 0, ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j']);
    await produce(f.d, 1, ['k', 'l', 'm', 'n']);
    const fetched = await shareFetch(f, 'm1', 0, { partitions: [0] });
    assert.deepEqual(
      partitionsOf(fetched).map((p) => p[3]),
      [[[0n, 9n, 1]]],
    );
    const acked = await shareAcknowledge(f, 'm1', 1, [
      { partition: 0, firstOffset: 0n, lastOffset: 2n, types: [ACCEPT] },
      { partition: 0, firstOffset: 5n, lastOffset: 7n, types: [REJECT, ACCEPT, RELEASE] },
    ]);
    assert.equal(acked.errorCode, NONE);
    const describe = (version: number) =>
      f.d.call(describeShareGroupOffsetsHandler, M.DescribeShareGroupOffsetsRequest, M.DescribeShareGroupOffsetsResponse, version, {
        groups: [{ groupId: GROUP, topics: [{ topicName: 't', partitions: [0, 1] }] }],
      });
    const v1 = await describe(1);
    assert.deepEqual(
      v1.groups[0]!.topics.flatMap((t) => t.partitions.map((p) => [p.partitionIndex, p.errorCode, p.startOffset, p.lag])),
      [
        [0, NONE, 3n, 5n],
        [1, NONE, 0n, 4n],
      ],
      'partition 0: 10 - 3 - 2 (offsets 5 and 6 are complete; 3, 4, 7, 8 and 9 are not); partition 1: nothing delivered yet',
    );
    const v0 = await describe(0);
    assert.deepEqual(
      v0.groups[0]!.topics.flatMap((t) => t.partitions.map((p) => [p.startOffset, p.lag])),
      [
        [3n, -1n],
        [0n, -1n],
      ],
      'v0 carries no lag',
    );
  });

  test('READ on the group comes first (GROUP_AUTHORIZATION_FAILED), then READ on each topic (TOPIC_AUTHORIZATION_FAILED)', async () => {
    const persister = new TestSharePersister();
    const shares: ShareServices = {
      partitions: new SharePartitionManager(persister, () => DEFAULT_SHARE_PARTITION_CONFIG, new ManualTimers()),
      sessions: new ShareSessionCache(10),
      batches: heldBatches,
    };
    const h = harness({ authorizer: { superUsers: [], allowEveryoneIfNoAclFound: false }, shares });
    try {
      await h.cluster.acls.create([allow(ResourceType.TOPIC, 't', Op.CREATE)]);
      const created = await call(
        createTopicsHandler,
        M.CreateTopicsRequest,
        M.CreateTopicsResponse,
        7,
        { topics: [{ name: 't', numPartitions: 1, replicationFactor: -1 }] },
        h.cluster,
      );
      const topicId = created.topics[0]!.topicId;
      const fetch = (epoch: number) =>
        call(
          shareFetchHandler,
          M.ShareFetchRequest,
          M.ShareFetchResponse,
          1,
          {
            groupId: GROUP,
            memberId: 'm1',
            shareSessionEpoch: epoch,
            maxRecords: 10,
            topics: [{ topicId, partitions: [{ partitionIndex: 0 }] }],
          },
          h.cluster,
        );
      const acknowledge = () =>
        call(
          shareAcknowledgeHandler,
          M.ShareAcknowledgeRequest,
          M.ShareAcknowledgeResponse,
          1,
          { groupId: GROUP, memberId: 'm1', shareSessionEpoch: 1, topics: [] },
          h.cluster,
        );
      assert.equal((await fetch(0)).errorCode, ErrorCode.GROUP_AUTHORIZATION_FAILED);
      assert.equal((await acknowledge()).errorCode, ErrorCode.GROUP_AUTHORIZATION_FAILED);
      await h.cluster.acls.create([allow(ResourceType.GROUP, GROUP, Op.READ)]);
      const res = await fetch(0);
      assert.deepEqual([res.errorCode, partitionsOf(res).map((p) => [p[0], p[1]])], [NONE, [[0, ErrorCode.TOPIC_AUTHORIZATION_FAILED]]]);
    } finally {
      h.close();
    }
  });
});
