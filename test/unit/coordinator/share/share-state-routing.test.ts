import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { Logger } from '../../../../src/common/logger.js';
import { ShareCoordinatorService, type ShareStateBackend } from '../../../../src/coordinator/share/share-coordinator-service.js';
import { ShareStatePersister } from '../../../../src/coordinator/share/share-state-routing.js';
import type { ShareOpError } from '../../../../src/coordinator/share/share-coordinator.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { MemoryLog } from '../transaction/harness.js';

const KEY = { groupId: 'g', topicId: 'AAAAAAAAAAAAAAAAAAAAEg', partition: 0 };

function service(leads: () => boolean): ShareCoordinatorService {
  return new ShareCoordinatorService({
    log: new MemoryLog(),
    numPartitions: 4,
    config: {},
    leads,
    partitionCount: () => 1,
    logger: new Logger('test'),
    deleteRecords: async () => ErrorCode.NONE,
    topicIds: () => [],
  });
}

/** A peer that answers each call from `answers`, in turn, and counts them. */
function peer(answers: ShareOpError[]): { backend: ShareStateBackend; calls: number } {
  const state = { calls: 0, backend: undefined as unknown as ShareStateBackend };
  const next = async (): Promise<ShareOpError> => answers[Math.min(state.calls++, answers.length - 1)]!;
  state.backend = {
    initialize: next,
    write: next,
    delete: next,
    read: async () => ({ ...(await next()), stateEpoch: 0, startOffset: 0n, stateBatches: [] }),
    readSummary: async () => ({ ...(await next()), stateEpoch: 0, leaderEpoch: 0, startOffset: 0n, deliveryCompleteCount: -1 }),
  };
  return state;
}

describe('ShareStatePersister', () => {
  it('keeps the state in the local shard when this broker leads the share-partition', async () => {
    const local = service(() => true);
    const p = new ShareStatePersister({ nodeId: 1, local, leaderOf: () => 1, peers: null });
    await p.initialize(KEY, 0, 5n);
    await p.write(KEY, {
      stateEpoch: 0,
      leaderEpoch: 0,
      startOffset: -1n,
      stateBatches: [{ firstOffset: 5n, lastOffset: 6n, deliveryState: 2, deliveryCount: 1 }],
    });
    const read = await p.read(KEY, 0);
    assert.equal(read.startOffset, 5n);
    assert.equal(read.stateBatches.length, 1);
    await assert.rejects(
      p.write(KEY, { stateEpoch: -1 + 0, leaderEpoch: -1, startOffset: 0n, stateBatches: [] }),
      (err: unknown) => err instanceof KafkaError && err.code === ErrorCode.INVALID_REQUEST,
    );
  });

  it('sends to the broker that leads the share-partition, retrying NOT_COORDINATOR', async () => {
    const local = service(() => false);
    const remote = peer([
      { errorCode: ErrorCode.NOT_COORDINATOR, errorMessage: null },
      { errorCode: ErrorCode.NONE, errorMessage: null },
    ]);
    const asked: number[] = [];
    const p = new ShareStatePersister({
      nodeId: 1,
      local,
      leaderOf: () => 2,
      peers: { at: (id) => (asked.push(id), remote.backend) },
      sleep: async () => undefined,
    });
    await p.delete(KEY);
    assert.deepEqual(asked, [2, 2]);
  });

  it('throws the coordinator error once the retries are spent, and other errors at once', async () => {
    const local = service(() => false);
    const busy = peer([{ errorCode: ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, errorMessage: null }]);
    const p = new ShareStatePersister({
      nodeId: 1,
      local,
      leaderOf: () => 2,
      peers: { at: () => busy.backend },
      maxAttempts: 3,
      sleep: async () => undefined,
    });
    await assert.rejects(p.delete(KEY), (err: unknown) => err instanceof KafkaError && err.code === ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
    assert.equal(busy.calls, 3);
    const fenced = peer([{ errorCode: ErrorCode.FENCED_STATE_EPOCH, errorMessage: null }]);
    const q = new ShareStatePersister({
      nodeId: 1,
      local,
      leaderOf: () => 2,
      peers: { at: () => fenced.backend },
      sleep: async () => undefined,
    });
    await assert.rejects(
      q.initialize(KEY, 0, 0n),
      (err: unknown) => err instanceof KafkaError && err.code === ErrorCode.FENCED_STATE_EPOCH,
    );
    assert.equal(fenced.calls, 1);
  });
});
