/**
 * franz-go's share-group tests against a Sluice broker process and/or Kafka (the pinned release,
 * one KRaft node), each started here on free ports and stopped afterwards.
 * Usage: node dist/tools/franz-share/run.js [--target sluice|kafka|both] [--records N] [--count N] [--chaos]
 * Prints one line per test (outcome, seconds) and exits 1 unless every test passed on every target;
 * --log DIR keeps each target's full go test output there.
 */
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { freePort } from '../../src/common/free-port.js';
import { startKafka } from '../kafka/kafka-process.js';
import { spawnSluice } from '../sluice/sluice-process.js';
import { allPassed, buildKgoTests, KGO_TEST_BINARY, runShareSuite, summarize, type SuiteRun } from './franz-suite.js';

/** What franz-go's CI gives its Kafka container for the share tests (.github/workflows/lint-and-test.yml). */
const SHARE_STATE_PARTITIONS = '5';
const KAFKA_CONFIG = {
  'share.coordinator.state.topic.num.partitions': SHARE_STATE_PARTITIONS,
  'group.coordinator.rebalance.protocols': 'classic,consumer,share',
};
/** Sluice serves every group protocol without a switch, so only the state topic's size carries over. */
const SLUICE_OVERRIDES = [`share.coordinator.state.topic.num.partitions=${SHARE_STATE_PARTITIONS}`];

const { values } = parseArgs({
  options: {
    target: { type: 'string', default: 'sluice' },
    records: { type: 'string', default: '2000' },
    count: { type: 'string', default: '1' },
    chaos: { type: 'boolean', default: false },
    log: { type: 'string' },
  },
});
const records = Number(values.records);
const count = Number(values.count);
const targets = values.target === 'both' ? ['sluice', 'kafka'] : [values.target];
if (
  !Number.isInteger(records) ||
  records < 1 ||
  !Number.isInteger(count) ||
  count < 1 ||
  targets.some((t) => t !== 'sluice' && t !== 'kafka')
) {
  console.error('usage: node dist/tools/franz-share/run.js [--target sluice|kafka|both] [--records N] [--count N] [--chaos] [--log DIR]');
  process.exit(2);
}

const buildProblem = buildKgoTests();
if (buildProblem !== undefined) {
  console.error(buildProblem);
  process.exit(1);
}

/** Starts the target with its own data dir, runs the suite, stops it and removes the data. */
async function runOn(target: string): Promise<SuiteRun> {
  const dataDir = mkdtempSync(join(tmpdir(), `franz-share-${target}-`));
  const timeoutMs = 240_000 + records * count; // franz-go bounds the ETL test at 4 minutes
  try {
    if (target === 'kafka') {
      const port = await freePort();
      const kafka = await startKafka({ port, controllerPort: await freePort(), logDir: dataDir, heap: '512m', config: KAFKA_CONFIG });
      try {
        return await runShareSuite({ binary: KGO_TEST_BINARY, bootstrap: kafka.bootstrap, records, count, chaos: values.chaos, timeoutMs });
      } finally {
        await kafka.stop();
      }
    }
    const sluice = await spawnSluice({
      overrides: ['listeners=PLAINTEXT://127.0.0.1:0', `log.dirs=${dataDir}`, ...SLUICE_OVERRIDES],
      startTimeoutMs: 60_000,
    });
    try {
      return await runShareSuite({ binary: KGO_TEST_BINARY, bootstrap: sluice.bootstrap, records, count, chaos: values.chaos, timeoutMs });
    } finally {
      if (sluice.child.exitCode === null) {
        sluice.child.kill('SIGTERM');
        await once(sluice.child, 'exit');
      }
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

let ok = true;
for (const target of targets) {
  const run = await runOn(target);
  console.log(summarize(target, run));
  if (values.log !== undefined) {
    mkdirSync(values.log, { recursive: true });
    writeFileSync(join(values.log, `${target}.log`), run.log);
  }
  ok &&= allPassed(run);
}
console.log(`records=${records} count=${count} chaos=${values.chaos}: ${ok ? 'all passed' : 'FAILED'}`);
process.exitCode = ok ? 0 : 1;
