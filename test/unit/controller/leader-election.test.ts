import { test } from 'node:test';
import assert from 'node:assert/strict';
import { controlledShutdownElection, offlineElection, preferredElection } from '../../../src/controller/leader-election.js';

const live = (...ids: number[]) => (id: number): boolean => ids.includes(id);

test('offline election: the first live in-sync replica in assignment order leads; dead replicas leave the ISR', () => {
  assert.deepEqual(offlineElection([3, 1, 2], [1, 2, 3], live(1, 2), false), { leader: 1, isr: [1, 2] });
  assert.deepEqual(offlineElection([3, 1, 2], [2, 3], live(1, 2), false), { leader: 2, isr: [2] }, 'a live replica out of the ISR is passed over');
});

test('offline election with no live in-sync replica: no leader, unless unclean election is enabled', () => {
  assert.equal(offlineElection([1, 2, 3], [3], live(1, 2), false), null);
  assert.deepEqual(offlineElection([1, 2, 3], [3], live(2), true), { leader: 2, isr: [2] });
  assert.equal(offlineElection([1, 2, 3], [3], live(), true), null);
});

test('controlled shutdown: the first other in-sync replica that stays takes over; none, and the leader keeps it', () => {
  assert.deepEqual(controlledShutdownElection([1, 2, 3], [1, 2, 3], live(1, 2, 3), new Set([1])), { leader: 2, isr: [2, 3] });
  assert.deepEqual(controlledShutdownElection([1, 2, 3], [1, 3], live(1, 2, 3), new Set([1])), { leader: 3, isr: [3] });
  assert.equal(controlledShutdownElection([1, 2], [1], live(1, 2), new Set([1])), null);
  assert.deepEqual(controlledShutdownElection([1, 2, 3], [1, 2, 3], live(1, 2, 3), new Set([1, 2])), { leader: 3, isr: [3] }, 'two shutting down at once');
});

test('preferred election: the first assigned replica, only when alive and in sync', () => {
  assert.deepEqual(preferredElection([2, 1], [1, 2], live(1, 2)), { leader: 2, isr: [1, 2] });
  assert.equal(preferredElection([2, 1], [1], live(1, 2)), null);
  assert.equal(preferredElection([2, 1], [1, 2], live(1)), null);
});
