/**
 * The share-state RPCs (83–87) as a broker sends them, raw over a socket to a Sluice broker
 * process: FindCoordinator key type 2 creates `__share_group_state`; Initialize, Write, Read and
 * ReadSummary keep a share-partition's state; the coordinator prunes the topic below the snapshot
 * it still needs (every write is a snapshot here, the prune runs every 100 ms); after a restart on
 * the same log dir the state reads back the same from what is left of the log; Delete forgets it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { SHARE_GROUP_STATE_TOPIC } from '@sluice/protocol/internal-topics.js';
import * as M from '@sluice/protocol/messages/index.js';
import { startBrokerProcess, type BrokerProcess } from '../../helpers/broker-process.js';
import { wireCall } from '../../helpers/wire-call.js';
import { waitFor } from '../../helpers/wait-for.js';

const SETTINGS = {
  'share.coordinator.state.topic.num.partitions': '1',
  'share.coordinator.snapshot.update.records.per.snapshot': '0',
  'share.coordinator.state.topic.prune.interval.ms': '100',
};
const BATCHES = [
  { firstOffset: 10n, lastOffset: 14n, deliveryState: 2, deliveryCount: 1 },
  { firstOffset: 15n, lastOffset: 15n, deliveryState: 0, deliveryCount: 2 },
];

describe('share-state RPCs against a broker process, across a restart', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-share-state-'));
  let broker: BrokerProcess | null = null;
  after(async () => {
    await broker?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const partitionOf = <P>(res: { results: ReadonlyArray<{ partitions: readonly P[] }> }): P => res.results[0]!.partitions[0]!;
  const read = (topicId: string) =>
    wireCall(broker!.bootstrap, M.ReadShareGroupStateRequest, M.ReadShareGroupStateResponse, 0, {
      groupId: 'g',
      topics: [{ topicId, partitions: [{ partition: 0, leaderEpoch: 4 }] }],
    }).then(partitionOf);
  const earliest = async (): Promise<bigint> => {
    const res = await wireCall(broker!.bootstrap, M.ListOffsetsRequest, M.ListOffsetsResponse, 7, {
      replicaId: -1,
      isolationLevel: 0,
      topics: [{ name: SHARE_GROUP_STATE_TOPIC, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -2n }] }],
    });
    const p = res.topics[0]!.partitions[0]!;
    assert.equal(p.errorCode, ErrorCode.NONE);
    return p.offset;
  };

  test('initialize, write, read, summary; pruned; restarted; read back; deleted', async () => {
    broker = await startBrokerProcess({ 'log.dirs': dir, ...SETTINGS });
    const created = await wireCall(broker.bootstrap, M.CreateTopicsRequest, M.CreateTopicsResponse, 7, {
      topics: [{ name: 'shared', numPartitions: 1, replicationFactor: -1 }],
      timeoutMs: 10_000,
    });
    assert.equal(created.topics[0]!.errorCode, ErrorCode.NONE);
    const topicId = created.topics[0]!.topicId;

    const found = await wireCall(broker.bootstrap, M.FindCoordinatorRequest, M.FindCoordinatorResponse, 6, {
      keyType: 2,
      coordinatorKeys: [`g:${topicId}:0`],
    });
    assert.deepEqual(
      found.coordinators.map((c) => [c.errorCode, c.port]),
      [[ErrorCode.NONE, broker.port]],
    );

    const init = await wireCall(broker.bootstrap, M.InitializeShareGroupStateRequest, M.InitializeShareGroupStateResponse, 0, {
      groupId: 'g',
      topics: [{ topicId, partitions: [{ partition: 0, stateEpoch: 1, startOffset: 10n }] }],
    });
    assert.equal(partitionOf(init).errorCode, ErrorCode.NONE);
    const written = await wireCall(broker.bootstrap, M.WriteShareGroupStateRequest, M.WriteShareGroupStateResponse, 1, {
      groupId: 'g',
      topics: [
        {
          topicId,
          partitions: [{ partition: 0, stateEpoch: 1, leaderEpoch: 4, startOffset: 10n, deliveryCompleteCount: 5, stateBatches: BATCHES }],
        },
      ],
    });
    assert.equal(partitionOf(written).errorCode, ErrorCode.NONE);
    const before = await read(topicId);
    assert.deepEqual([before.errorCode, before.stateEpoch, before.startOffset, before.stateBatches], [ErrorCode.NONE, 1, 10n, BATCHES]);
    const summary = partitionOf(
      await wireCall(broker.bootstrap, M.ReadShareGroupStateSummaryRequest, M.ReadShareGroupStateSummaryResponse, 1, {
        groupId: 'g',
        topics: [{ topicId, partitions: [{ partition: 0, leaderEpoch: 4 }] }],
      }),
    );
    assert.deepEqual(
      [summary.errorCode, summary.stateEpoch, summary.leaderEpoch, summary.startOffset, summary.deliveryCompleteCount],
      [ErrorCode.NONE, 1, 4, 10n, 5],
    );

    // Three snapshots: Initialize's (0), the write's (1), and the read's at its new leader epoch (2),
    // which is all the state needs: the prune job deletes the two before it.
    const start = await waitFor(
      'the prune job to delete the two older snapshots',
      10_000,
      async () => {
        const s = await earliest();
        return s >= 2n ? s : undefined;
      },
      50,
    );
    assert.equal(start, 2n);

    assert.equal(await broker.stop(), 0);
    broker = await startBrokerProcess({ 'log.dirs': dir, ...SETTINGS });
    // The coordinator replays its partition after the restart; until then it answers that it is loading.
    const after = await waitFor(
      'the coordinator to load its partition',
      10_000,
      async () => {
        const r = await read(topicId);
        return r.errorCode === ErrorCode.COORDINATOR_LOAD_IN_PROGRESS ? undefined : r;
      },
      50,
    );
    assert.deepEqual(after, before);

    const deleted = await wireCall(broker.bootstrap, M.DeleteShareGroupStateRequest, M.DeleteShareGroupStateResponse, 0, {
      groupId: 'g',
      topics: [{ topicId, partitions: [{ partition: 0 }] }],
    });
    assert.equal(partitionOf(deleted).errorCode, ErrorCode.NONE);
    assert.equal((await read(topicId)).errorCode, ErrorCode.INVALID_REQUEST);
  });
});
