// The short fault run of `npm test` (tools/fault; the long one is `npm run fault:cluster`): a
// 3-broker cluster on ZooKeeper, a topic with replication factor 3 and min.insync.replicas 2,
// idempotent acks=all producers and committing group consumers from the Java client and
// librdkafka, and at least 20 faults picked by a printed seed (FAULT_SEED replays one): kill -9
// of leaders, followers and the controller, pauses past the session timeout, ZooKeeper restarts,
// brokers cut off by reset or black-holed connections, a full disk. No acknowledged write may be
// lost, duplicated, moved or reordered, and no committed offset may go back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ANOMALY_KINDS } from '../../../tools/fault/checker.js';
import { randomSeed } from '../../../tools/fault/prng.js';
import { markdown } from '../../../tools/fault/report.js';
import { runFaults } from '../../../tools/fault/runner.js';
import { javaSkip, zooKeeperSkip } from '../../helpers/requirements.js';

const FAULTS = 20;

test(`${FAULTS} mixed faults lose no acknowledged write`, { skip: zooKeeperSkip() ?? javaSkip(), timeout: 8 * 60_000 }, async (t) => {
  const seed = process.env['FAULT_SEED'] === undefined ? randomSeed() : Number(process.env['FAULT_SEED']);
  const result = await runFaults({ faults: FAULTS, seed, log: (line) => t.diagnostic(line) });
  for (const line of markdown(result).split('\n')) t.diagnostic(line);
  for (const s of result.skipped) t.diagnostic(`left out: ${s}`);
  assert.deepEqual(result.problems, [], `the run went wrong (seed ${seed}, folder ${result.dir})`);
  assert.equal(result.faults.length, FAULTS);
  assert.ok(
    result.faults.every((f) => f.recoveredMs !== null),
    'the cluster was whole again after every fault',
  );
  assert.ok(
    result.check.writes.acked > 0 && result.check.storedRecords >= result.check.writes.acked,
    'writes were acknowledged and read back',
  );
  assert.deepEqual(
    result.check.counts,
    Object.fromEntries(ANOMALY_KINDS.map((k) => [k, 0])),
    `anomalies with seed ${seed} (history and logs in ${result.dir}):\n${result.check.anomalies
      .slice(0, 20)
      .map((a) => `${a.kind}: ${a.detail}`)
      .join('\n')}`,
  );
});
