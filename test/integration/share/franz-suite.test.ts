// franz-go's own share-group tests (pkg/kgo of the franz-go version pinned in
// tools/franz-share/go.mod, unmodified) against one broker process: they skip on a broker without
// ShareFetch v2 / ShareAcknowledge v2, so each must PASS here, not merely not fail. The ETL test
// pushes a small record count (franz-go's default is 500000) to keep the run near twenty seconds.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startBrokerProcess, type BrokerProcess } from '../../helpers/broker-process.js';
import { franzSuiteSkip } from '../../helpers/requirements.js';
import { FRANZ_SHARE_TESTS, KGO_TEST_BINARY, runShareSuite, type SuiteRun } from '../../../tools/franz-share/franz-suite.js';

const RECORDS = 2000;
const SUITE_TIMEOUT_MS = 150_000;

describe("franz-go's share-group tests (pkg/kgo)", { skip: franzSuiteSkip() }, () => {
  let broker: BrokerProcess;
  let run: SuiteRun;

  before(
    async () => {
      // As franz-go's CI sizes Kafka's share-state topic.
      broker = await startBrokerProcess({ 'share.coordinator.state.topic.num.partitions': '5' });
      run = await runShareSuite({ binary: KGO_TEST_BINARY, bootstrap: broker.bootstrap, records: RECORDS, timeoutMs: SUITE_TIMEOUT_MS });
    },
    { timeout: SUITE_TIMEOUT_MS + 90_000 },
  );

  after(async () => {
    await broker?.stop();
  });

  for (const name of FRANZ_SHARE_TESTS) {
    test(name, () => {
      const result = run.results.find((r) => r.name === name);
      assert.ok(result !== undefined, `${name} was not reported (exit ${run.exitCode}):\n${run.log.slice(-4000)}`);
      assert.equal(result.outcome, 'PASS', `${name}:\n${result.output.join('\n')}`);
    });
  }

  test('the go test binary exited cleanly', () => {
    assert.equal(run.exitCode, 0, run.log.slice(-4000));
  });
});
