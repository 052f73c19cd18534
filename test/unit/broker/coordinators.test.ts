/**
 * `LazyCoordinators` over fake coordinators: built once, on first use; a failed build is tried
 * again; leadership of an internal topic builds them (and reaches the built ones); a stop during
 * the build stops them once built; the share persister builds them on its first call.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { Logger } from '../../../src/common/logger.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { CONSUMER_OFFSETS_TOPIC, SHARE_GROUP_STATE_TOPIC, TRANSACTION_STATE_TOPIC } from '@sluice/protocol/internal-topics.js';
import { LazyCoordinators, type Coordinators } from '../../../src/broker/coordinators.js';
import type { SharePartitionKey } from '../../../src/coordinator/share/share-state-persister.js';

/** Coordinators that record what was asked of them, as `service.call`. */
function fakeCoordinators(calls: string[]): Coordinators {
  const service = (name: string) => ({
    onLeadership: () => calls.push(`${name}.onLeadership`),
    close: () => calls.push(`${name}.close`),
  });
  const sharePersister = {
    initialize: async () => void calls.push('persister.initialize'),
    read: async () => ({ stateEpoch: 0, startOffset: 0n, leaderEpoch: 0, stateBatches: [] }),
    write: async () => undefined,
    delete: async () => undefined,
    readSummary: async () => ({ stateEpoch: 0, startOffset: 0n, leaderEpoch: 0, deliveryCompleteCount: 0 }),
  };
  return {
    groups: service('groups'),
    transactions: service('transactions'),
    shareCoordinator: service('share'),
    sharePersister,
  } as unknown as Coordinators;
}

const quiet = new Logger('test');
const KEY: SharePartitionKey = { groupId: 'g', topicId: 'AAAAAAAAAAAAAAAAAAAAAQ', partition: 0 };

test('built once, on first use; before that get() is COORDINATOR_NOT_AVAILABLE; a failed build is tried again', async () => {
  const calls: string[] = [];
  let builds = 0;
  const lazy = new LazyCoordinators(async () => {
    if (++builds === 1) throw new Error('no module');
    return fakeCoordinators(calls);
  }, quiet);
  assert.equal(builds, 0, 'nothing is built until asked');
  assert.throws(
    () => lazy.get(),
    (e: unknown) => e instanceof KafkaError && e.code === ErrorCode.COORDINATOR_NOT_AVAILABLE,
  );
  await assert.rejects(lazy.load(), /no module/);
  const [a, b] = await Promise.all([lazy.load(), lazy.load()]);
  assert.equal(a, b);
  assert.equal(builds, 2);
  assert.equal(lazy.get(), a);
});

test('leadership of an internal topic builds them; once built it reaches the coordinator concerned; other topics build nothing', async () => {
  const calls: string[] = [];
  let builds = 0;
  const lazy = new LazyCoordinators(async () => {
    builds++;
    return fakeCoordinators(calls);
  }, quiet);
  lazy.onLeadershipChange(new Set(['orders']));
  assert.equal(builds, 0);
  lazy.onLeadershipChange(new Set([CONSUMER_OFFSETS_TOPIC]));
  await lazy.load();
  assert.equal(builds, 1);
  lazy.onLeadershipChange(new Set([TRANSACTION_STATE_TOPIC, SHARE_GROUP_STATE_TOPIC]));
  assert.deepEqual(calls, ['transactions.onLeadership', 'share.onLeadership']);
});

test('the share persister builds them on its first call; a stop during the build stops them once built', async () => {
  const calls: string[] = [];
  let finish: () => void = () => undefined;
  const lazy = new LazyCoordinators(() => new Promise<Coordinators>((resolve) => (finish = () => resolve(fakeCoordinators(calls)))), quiet);
  const initialized = lazy.sharePersister.initialize(KEY, 1, 0n);
  lazy.close();
  assert.deepEqual(calls, []);
  finish();
  await initialized;
  assert.deepEqual(calls, ['groups.close', 'transactions.close', 'share.close', 'persister.initialize']);
});
