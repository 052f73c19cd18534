/** Kafka's transaction states: ids, names, and the legal transitions, which the metadata transitions enforce. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  TransactionState,
  isLegalTransition,
  stateName,
  stateNamed,
  stateOfId,
} from '../../../../src/coordinator/transaction/transaction-state.js';
import { complete, newTransaction } from '../../../../src/coordinator/transaction/transaction-metadata.js';

const { Empty, Ongoing, PrepareCommit, PrepareAbort, CompleteCommit, CompleteAbort, Dead, PrepareEpochFence } = TransactionState;
const ALL = [Empty, Ongoing, PrepareCommit, PrepareAbort, CompleteCommit, CompleteAbort, Dead, PrepareEpochFence];

test("ids and names are Kafka's", () => {
  assert.deepEqual(ALL, [0, 1, 2, 3, 4, 5, 6, 7]);
  assert.deepEqual(ALL.map(stateName), [
    'Empty',
    'Ongoing',
    'PrepareCommit',
    'PrepareAbort',
    'CompleteCommit',
    'CompleteAbort',
    'Dead',
    'PrepareEpochFence',
  ]);
  assert.equal(stateNamed('CompleteAbort'), CompleteAbort);
  assert.equal(stateNamed('completeabort'), undefined, 'names are case-sensitive');
  assert.throws(() => stateOfId(8));
});

test("exactly Kafka's transitions are legal", () => {
  const legal: Array<[number, number]> = [
    [Empty, Empty],
    [CompleteCommit, Empty],
    [CompleteAbort, Empty],
    [Ongoing, Ongoing],
    [Empty, Ongoing],
    [CompleteCommit, Ongoing],
    [CompleteAbort, Ongoing],
    [Ongoing, PrepareCommit],
    [Ongoing, PrepareAbort],
    [PrepareEpochFence, PrepareAbort],
    [Empty, PrepareAbort],
    [CompleteCommit, PrepareAbort],
    [CompleteAbort, PrepareAbort],
    [PrepareCommit, CompleteCommit],
    [PrepareAbort, CompleteAbort],
    [Empty, Dead],
    [CompleteCommit, Dead],
    [CompleteAbort, Dead],
    [Ongoing, PrepareEpochFence],
  ];
  const key = (from: number, to: number) => `${from}->${to}`;
  const expected = new Set(legal.map(([f, t]) => key(f, t)));
  for (const from of ALL) {
    for (const to of ALL) assert.equal(isLegalTransition(from, to), expected.has(key(from, to)), key(from, to));
  }
});

test('an illegal transition is a bug and throws', () => {
  const m = { ...newTransaction('t', 1n, 1000, 0), producerEpoch: 0, state: Ongoing };
  assert.throws(() => complete(m, 1), /illegal transition from Ongoing to CompleteAbort/);
});
