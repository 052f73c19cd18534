/**
 * A partition the metadata lists but this broker does not host (its LeaderAndIsr not applied
 * yet, or no longer a replica here) answers NOT_LEADER_OR_FOLLOWER to the data requests, as
 * Kafka's ReplicaManager does, so that clients refresh their metadata; a partition the metadata
 * does not list stays UNKNOWN_TOPIC_OR_PARTITION.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { produceHandler } from '../../../src/handlers/00-produce.js';
import { fetchHandler } from '../../../src/handlers/01-fetch.js';
import { listOffsetsHandler } from '../../../src/handlers/02-list-offsets.js';
import { deleteRecordsHandler } from '../../../src/handlers/21-delete-records.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import * as M from '@sluice/protocol/messages/index.js';
import { batch, dataHarnesses, type DataHarness } from './data-harness.js';

const { NOT_LEADER_OR_FOLLOWER, UNKNOWN_TOPIC_OR_PARTITION } = ErrorCode;
const fresh = dataHarnesses();

/** Partition 0 of 't' hosted, partition 1 listed but not hosted; partition 2 does not exist. */
async function setUp(): Promise<DataHarness> {
  const d = fresh();
  await d.createTopic('t', 2);
  d.owner.stopHosting('t', 1);
  return d;
}

const PARTITIONS = [0, 1, 2];

test('Produce', async () => {
  const d = await setUp();
  const res = await d.call(produceHandler, M.ProduceRequest, M.ProduceResponse, 9, {
    acks: 1,
    timeoutMs: 1000,
    transactionalId: null,
    topicData: [{ name: 't', partitionData: PARTITIONS.map((index) => ({ index, records: batch(['a']) })) }],
  });
  assert.deepEqual(
    res.responses[0]!.partitionResponses.map((p) => [p.index, p.errorCode]),
    [
      [0, ErrorCode.NONE],
      [1, NOT_LEADER_OR_FOLLOWER],
      [2, UNKNOWN_TOPIC_OR_PARTITION],
    ],
  );
});

test('Fetch, with the leader the metadata names (KIP-951)', async () => {
  const d = await setUp();
  const res = await d.call(fetchHandler, M.FetchRequest, M.FetchResponse, 12, {
    replicaId: -1,
    maxWaitMs: 0,
    minBytes: 0,
    maxBytes: 1 << 20,
    topics: [{ topic: 't', partitions: PARTITIONS.map((partition) => ({ partition, fetchOffset: 0n, partitionMaxBytes: 1 << 20 })) }],
  });
  const partitions = res.responses[0]!.partitions;
  assert.deepEqual(
    partitions.map((p) => [p.partitionIndex, p.errorCode]),
    [
      [0, ErrorCode.NONE],
      [1, NOT_LEADER_OR_FOLLOWER],
      [2, UNKNOWN_TOPIC_OR_PARTITION],
    ],
  );
  assert.equal(partitions[1]!.currentLeader.leaderId, 0, 'the leader the metadata names');
});

test('ListOffsets and DeleteRecords', async () => {
  const d = await setUp();
  const listed = await d.call(listOffsetsHandler, M.ListOffsetsRequest, M.ListOffsetsResponse, 7, {
    replicaId: -1,
    topics: [{ name: 't', partitions: PARTITIONS.map((partitionIndex) => ({ partitionIndex, timestamp: -1n })) }],
  });
  assert.deepEqual(
    listed.topics[0]!.partitions.map((p) => [p.partitionIndex, p.errorCode]),
    [
      [0, ErrorCode.NONE],
      [1, NOT_LEADER_OR_FOLLOWER],
      [2, UNKNOWN_TOPIC_OR_PARTITION],
    ],
  );
  const deleted = await d.call(deleteRecordsHandler, M.DeleteRecordsRequest, M.DeleteRecordsResponse, 2, {
    topics: [{ name: 't', partitions: PARTITIONS.map((partitionIndex) => ({ partitionIndex, offset: 0n })) }],
    timeoutMs: 1000,
  });
  assert.deepEqual(
    deleted.topics[0]!.partitions.map((p) => [p.partitionIndex, p.errorCode]),
    [
      [0, ErrorCode.NONE],
      [1, NOT_LEADER_OR_FOLLOWER],
      [2, UNKNOWN_TOPIC_OR_PARTITION],
    ],
  );
});
