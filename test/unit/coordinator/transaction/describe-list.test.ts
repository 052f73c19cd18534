/** DescribeTransactions and ListTransactions answers of one coordinator, and ListTransactions' filter parsing. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { parseListFilter } from '../../../../src/coordinator/transaction/list-filter.js';
import { Harness, OTHER, TP0, TP1, TXN } from './harness.js';

test('describe: an open transaction with its partitions grouped by topic; an unknown id is TRANSACTIONAL_ID_NOT_FOUND', () => {
  const h = new Harness();
  const p = h.init(0);
  h.add(1000, p, [TP1, OTHER, TP0]);
  assert.deepEqual(h.c.describe(TXN), {
    transactionalId: TXN,
    errorCode: ErrorCode.NONE,
    transactionState: 'Ongoing',
    transactionTimeoutMs: 60_000,
    transactionStartTimeMs: 1000n,
    producerId: p.producerId,
    producerEpoch: 0,
    topics: [
      { topic: 't', partitions: [0, 1] },
      { topic: 'u', partitions: [3] },
    ],
  });
  assert.deepEqual(h.c.describe('nobody'), { transactionalId: 'nobody', errorCode: ErrorCode.TRANSACTIONAL_ID_NOT_FOUND });
});

function list(
  h: Harness,
  now: number,
  filters: { stateFilters?: string[]; producerIdFilters?: bigint[]; durationFilter?: bigint; transactionalIdPattern?: string | null },
) {
  const { filter } = parseListFilter({
    stateFilters: [],
    producerIdFilters: [],
    durationFilter: -1n,
    transactionalIdPattern: null,
    ...filters,
  });
  return h.c
    .list(filter, now)
    .map((t) => t.transactionalId)
    .sort();
}

test('list filters by state, producer id, duration (strictly longer) and a pattern over the whole id', () => {
  const h = new Harness();
  const a = h.init(0, { id: 'my-a' });
  h.add(1000, a, [TP0], { id: 'my-a' });
  const b = h.init(0, { id: 'your-b' });
  h.add(2000, b, [TP0], { id: 'your-b' });
  h.init(0, { id: 'c' });
  assert.deepEqual(list(h, 3000, {}), ['c', 'my-a', 'your-b']);
  assert.deepEqual(list(h, 3000, { stateFilters: ['Ongoing'] }), ['my-a', 'your-b']);
  assert.deepEqual(list(h, 3000, { stateFilters: ['Ongoing', 'Nope'] }), ['my-a', 'your-b']);
  assert.deepEqual(list(h, 3000, { stateFilters: ['Nope'] }), [], 'only unknown states: nothing');
  assert.deepEqual(list(h, 3000, { producerIdFilters: [b.producerId] }), ['your-b']);
  assert.deepEqual(list(h, 3000, { durationFilter: 1000n, stateFilters: ['Ongoing'] }), ['my-a']);
  assert.deepEqual(list(h, 3000, { transactionalIdPattern: '.*-.' }), ['my-a', 'your-b']);
  assert.deepEqual(list(h, 3000, { transactionalIdPattern: 'my' }), [], 'the pattern matches whole ids');
  assert.deepEqual(list(h, 3000, { transactionalIdPattern: '' }), ['c', 'my-a', 'your-b'], 'empty: no filter');
});

test('parsing: unknown states are echoed once, a pattern that does not compile is INVALID_REGULAR_EXPRESSION', () => {
  const parsed = parseListFilter({
    stateFilters: ['Ongoing', 'Bogus', 'Bogus'],
    producerIdFilters: [],
    durationFilter: -1n,
    transactionalIdPattern: null,
  });
  assert.deepEqual(parsed.unknownStateFilters, ['Bogus']);
  assert.throws(
    () => parseListFilter({ stateFilters: [], producerIdFilters: [], durationFilter: -1n, transactionalIdPattern: '(ab(cd' }),
    (err: { code?: number }) => err.code === ErrorCode.INVALID_REGULAR_EXPRESSION,
  );
});
