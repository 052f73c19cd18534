/** The transactional workload checker: each anomaly class found on a history built to show it, none on a clean one. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkTransactions, type TxnOutcome } from '../../../tools/fault/txn-checker.js';

const txns: TxnOutcome[] = [
  { id: 'p0-0', outcome: 'committed', values: ['a', 'b'] },
  { id: 'p0-1', outcome: 'aborted', values: ['c'] },
  { id: 'p1-0', outcome: 'unknown', values: ['d', 'e'] },
];

test('a clean history has no anomaly; an unknown transaction may be wholly there or wholly absent', () => {
  assert.deepEqual(checkTransactions(txns, { '0': ['a', 'd'], '1': ['b', 'e'] }, [{ '0': ['a'] }]).anomalies, []);
  const r = checkTransactions(txns, { '0': ['a'], '1': ['b'] }, []);
  assert.deepEqual(r.anomalies, []);
  assert.deepEqual(r.transactions, { committed: 1, aborted: 1, unknown: 1 });
});

test('every anomaly class', () => {
  const kinds = (final: Record<string, string[]>, observed: Array<Record<string, string[]>> = []): string[] =>
    checkTransactions(txns, final, observed)
      .anomalies.map((a) => a.kind)
      .sort();
  assert.deepEqual(kinds({ '0': ['a'] }), ['lost']);
  assert.deepEqual(kinds({ '0': ['a', 'b', 'c'] }), ['abortedRead']);
  assert.deepEqual(kinds({ '0': ['a', 'b', 'd'] }), ['torn']);
  assert.deepEqual(kinds({ '0': ['a', 'b', 'a'] }), ['duplicated']);
  assert.deepEqual(kinds({ '0': ['a', 'b', 'zz'] }), ['neverSent']);
  assert.deepEqual(kinds({ '0': ['a', 'b'] }, [{ '0': ['b'] }]), ['intermediateRead'], 'a consumer skipped a');
  assert.deepEqual(
    kinds({ '0': ['a', 'b'] }, [{ '0': ['a', 'c'] }]),
    ['abortedRead', 'intermediateRead'],
    'a consumer read an aborted record the log does not keep for read_committed',
  );
});
