import { test } from 'node:test';
import assert from 'node:assert/strict';
import { allPassed, parseGoTestOutput, summarize, type SuiteRun } from '../../../tools/franz-share/franz-suite.js';

// go test -v of parallel tests, as the kgo binary prints it: PAUSE/CONT headers, client log lines
// (unindented) between them, and === NAME whenever a test's output resumes.
const PARALLEL_RUN = [
  '=== RUN   TestShareGroup',
  '=== PAUSE TestShareGroup',
  '=== RUN   TestShareGroupETL',
  '=== PAUSE TestShareGroupETL',
  '=== CONT  TestShareGroup',
  '=== CONT  TestShareGroupETL',
  '[04:36:27.504 1][INFO] producing to a new topic for the first time',
  '=== NAME  TestShareGroup',
  '    client_test.go:459: deleting topic 068c',
  '--- PASS: TestShareGroup (9.30s)',
  '=== CONT  TestShareGroupOffsetsAdmin',
  '    helpers_test.go:12: broker does not support share groups',
  '--- SKIP: TestShareGroupOffsetsAdmin (0.00s)',
  '=== NAME  TestShareGroupETL',
  '    share_test.go:494: phase 1a done: reject consumer consumed 691, rejected 50 keys',
  '    share_test.go:377: level 1: key 7 missing',
  '--- FAIL: TestShareGroupETL (22.44s)',
  'FAIL',
].join('\n');

test('each reported test gets its outcome, its time and the lines it logged, across interleaved parallel output', () => {
  assert.deepEqual(parseGoTestOutput(PARALLEL_RUN), [
    { name: 'TestShareGroup', outcome: 'PASS', seconds: 9.3, output: ['client_test.go:459: deleting topic 068c'] },
    {
      name: 'TestShareGroupOffsetsAdmin',
      outcome: 'SKIP',
      seconds: 0,
      output: ['helpers_test.go:12: broker does not support share groups'],
    },
    {
      name: 'TestShareGroupETL',
      outcome: 'FAIL',
      seconds: 22.44,
      output: [
        'share_test.go:494: phase 1a done: reject consumer consumed 691, rejected 50 keys',
        'share_test.go:377: level 1: key 7 missing',
      ],
    },
  ]);
});

test('with -count N a test is reported N times, each with its own output', () => {
  const text = [
    '=== RUN   TestShareGroup',
    '    a.go:1: first',
    '--- PASS: TestShareGroup (1.00s)',
    '=== RUN   TestShareGroup',
    '    a.go:1: second',
    '--- FAIL: TestShareGroup (2.50s)',
  ].join('\n');
  assert.deepEqual(
    parseGoTestOutput(text).map((r) => [r.outcome, r.seconds, r.output]),
    [
      ['PASS', 1, ['a.go:1: first']],
      ['FAIL', 2.5, ['a.go:1: second']],
    ],
  );
});

const run = (outcomes: Record<string, 'PASS' | 'FAIL' | 'SKIP'>, exitCode: number | null = 0): SuiteRun => ({
  results: Object.entries(outcomes).map(([name, outcome]) => ({ name, outcome, seconds: 1, output: [] })),
  exitCode,
  wallSeconds: 5,
  log: '',
});
const ALL = {
  TestShareGroup: 'PASS',
  TestShareGroupETL: 'PASS',
  TestShareGroupAckOnClose: 'PASS',
  TestShareGroupOffsetsAdmin: 'PASS',
} as const;

test('the suite passed only when all four tests ran and passed: a skip (broker without the APIs) is not a pass', () => {
  assert.equal(allPassed(run(ALL)), true);
  assert.equal(allPassed(run({ ...ALL, TestShareGroupETL: 'SKIP' })), false);
  assert.equal(allPassed(run({ ...ALL, TestShareGroupETL: 'FAIL' }, 1)), false);
  const { TestShareGroupAckOnClose: _missing, ...three } = ALL;
  assert.equal(allPassed(run(three)), false);
  assert.equal(allPassed(run(ALL, null)), false);
});

test('the summary names a test go test never reported', () => {
  const { TestShareGroupAckOnClose: _missing, ...three } = ALL;
  const lines = summarize('sluice', run(three, null)).split('\n');
  assert.ok(
    lines.some((l) => l.includes('NONE') && l.includes('TestShareGroupAckOnClose')),
    lines.join('\n'),
  );
  assert.equal(lines.filter((l) => l.includes(' PASS ')).length, 3);
});
