import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  controlledShutdownElection,
  eligibleAfterIsrChange,
  offlineElection,
  preferredElection,
} from '../../../../src/controller/zk/leader-election.js';

const live =
  (...ids: number[]) =>
  (id: number): boolean =>
    ids.includes(id);

test('offline election: the first live in-sync replica in assignment order leads; dead replicas leave the ISR', () => {
  assert.deepEqual(offlineElection([3, 1, 2], [1, 2, 3], [], live(1, 2), false), { leader: 1, isr: [1, 2], kind: 'isr' });
  assert.deepEqual(
    offlineElection([3, 1, 2], [2, 3], [], live(1, 2), false),
    { leader: 2, isr: [2], kind: 'isr' },
    'a live replica out of the ISR is passed over',
  );
  assert.deepEqual(
    offlineElection([3, 1, 2], [2, 3], [1], live(1, 2), true),
    { leader: 2, isr: [2], kind: 'isr' },
    'a live ISR member comes before an eligible replica',
  );
});

test('offline election with no live in-sync replica: no leader, unless unclean election is enabled', () => {
  assert.equal(offlineElection([1, 2, 3], [3], [], live(1, 2), false), null);
  assert.deepEqual(offlineElection([1, 2, 3], [3], [], live(2), true), { leader: 2, isr: [2], kind: 'unclean' });
  assert.equal(offlineElection([1, 2, 3], [3], [], live(), true), null);
});

test('offline election with no live in-sync replica: a live eligible leader replica leads cleanly, alone in the ISR, before any unclean choice', () => {
  assert.deepEqual(
    offlineElection([1, 2, 3], [3], [2], live(1, 2), false),
    { leader: 2, isr: [2], kind: 'eligible' },
    'broker 1 comes first in the assignment but is not eligible',
  );
  assert.deepEqual(offlineElection([1, 2, 3], [3], [2], live(1, 2), true), { leader: 2, isr: [2], kind: 'eligible' });
  assert.deepEqual(
    offlineElection([1, 2, 3], [3], [2], live(1), true),
    { leader: 1, isr: [1], kind: 'unclean' },
    'the eligible replica is down too',
  );
  assert.equal(offlineElection([1, 2, 3], [3], [2], live(1), false), null);
});

test('eligible leader replicas: only replicas that leave an ISR at or below min.insync.replicas join; a large enough ISR empties the set', () => {
  // RF 3, min ISR 2. Broker 3 falls behind while two stay: the high watermark may move past it.
  assert.deepEqual(eligibleAfterIsrChange([], [1, 2, 3], [1, 2], 2), [], 'left an ISR still at min ISR: it may lack later commits');
  // Broker 2 leaves next: the ISR drops below min ISR, the high watermark stops where broker 2 has it.
  assert.deepEqual(eligibleAfterIsrChange([], [1, 2], [1], 2), [2]);
  // Both followers leave at once from a full ISR: both held the high watermark, which then stops.
  assert.deepEqual(eligibleAfterIsrChange([], [1, 2, 3], [1], 2), [2, 3]);
  // The last ISR member fails and broker 2 is elected from the set: the old leader joins it, broker 2 leaves it.
  assert.deepEqual(eligibleAfterIsrChange([2], [1], [2], 2), [1]);
  // An ISR change that keeps the ISR below min ISR keeps the set (the high watermark still stands).
  assert.deepEqual(eligibleAfterIsrChange([2], [1], [1], 2), [2]);
  // Broker 2 rejoins with min ISR 3: it leaves the set, broker 3 stays in it.
  assert.deepEqual(eligibleAfterIsrChange([2, 3], [1], [1, 2], 3), [3]);
  // The ISR is back at min ISR: the high watermark moves again, nobody outside the ISR is vouched for.
  assert.deepEqual(eligibleAfterIsrChange([2, 3], [1], [1, 2], 2), []);
  // min ISR 1 (the default): the high watermark never stops, so no one is ever eligible.
  assert.deepEqual(eligibleAfterIsrChange([], [1, 2, 3], [1], 1), []);
});

test('controlled shutdown: the first other in-sync replica that stays takes over; none, and the leader keeps it', () => {
  assert.deepEqual(controlledShutdownElection([1, 2, 3], [1, 2, 3], live(1, 2, 3), new Set([1])), { leader: 2, isr: [2, 3] });
  assert.deepEqual(controlledShutdownElection([1, 2, 3], [1, 3], live(1, 2, 3), new Set([1])), { leader: 3, isr: [3] });
  assert.equal(controlledShutdownElection([1, 2], [1], live(1, 2), new Set([1])), null);
  assert.deepEqual(
    controlledShutdownElection([1, 2, 3], [1, 2, 3], live(1, 2, 3), new Set([1, 2])),
    { leader: 3, isr: [3] },
    'two shutting down at once',
  );
});

test('preferred election: the first assigned replica, only when alive and in sync', () => {
  assert.deepEqual(preferredElection([2, 1], [1, 2], live(1, 2)), { leader: 2, isr: [1, 2] });
  assert.equal(preferredElection([2, 1], [1], live(1, 2)), null);
  assert.equal(preferredElection([2, 1], [1, 2], live(1)), null);
});
