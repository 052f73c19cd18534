// The Java client (kafka-clients of the pinned Kafka release) with group.protocol=consumer against
// the broker process: two consumers split a 4-partition topic, commit, and the survivor takes everything when one leaves.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startBrokerProcess, type BrokerProcess } from '../../helpers/broker-process.js';
import { REPO_ROOT } from '../../../tools/codegen/main.js';
import { kafkaClasspath } from '../../../tools/kafka/kafka-release.js';
import { javaSkip } from '../../helpers/requirements.js';

const SOURCE = join(REPO_ROOT, 'test/integration/groups-kip848/Kip848Consumers.java');

type Line = Record<string, unknown> & { type: string };

describe('KIP-848 consumer groups with the Java client', { skip: javaSkip() }, () => {
  let broker: BrokerProcess;
  before(async () => {
    broker = await startBrokerProcess({ 'group.initial.rebalance.delay.ms': '0' });
  });
  after(async () => {
    await broker?.stop();
  });

  test('two consumers: disjoint full coverage, commits, describe; one leaves and the other gets all', async () => {
    const { stdout } = await promisify(execFile)('java', ['-cp', kafkaClasspath(), SOURCE, broker.bootstrap, 'kip848', 'kip848-group'], {
      timeout: 240_000,
      maxBuffer: 8 << 20,
    });
    const lines = stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Line);
    const line = (type: string): Line => lines.find((l) => l.type === type) ?? assert.fail(`no ${type} line in ${stdout}`);
    assert.deepEqual(line('alone'), { type: 'alone', ok: true, a: [0, 1, 2, 3] });
    const two = line('two');
    assert.equal(two['ok'], true, JSON.stringify(two));
    assert.deepEqual([...(two['a'] as number[]), ...(two['b'] as number[])].sort(), [0, 1, 2, 3]);
    assert.deepEqual(line('commits'), { type: 'commits', a: 'ok', b: 'ok' });
    assert.deepEqual(line('described'), { type: 'described', groupType: 'Consumer', state: 'Stable', members: 2, assignor: 'uniform' });
    assert.deepEqual(line('listed'), { type: 'listed', ok: true });
    assert.deepEqual(line('after-leave'), { type: 'after-leave', ok: true, a: [0, 1, 2, 3] });
  });
});
