/**
 * Apache Kafka's own `kafka-features.sh --bootstrap-server` (org.apache.kafka.tools.FeatureCommand
 * of the pinned release) against a Sluice broker process: describe (ApiVersions' features),
 * downgrade, a refused upgrade, disable, and the levels still there after a restart (the
 * metadata file). A disabled share.version turns share groups off for clients.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ErrorCode } from '@sluice/protocol/errors.js';
import * as M from '@sluice/protocol/messages/index.js';
import { kafkaClasspath } from '../../../tools/kafka/kafka-release.js';
import { startBrokerProcess, type BrokerProcess } from '../../helpers/broker-process.js';
import { runProcess } from '../../helpers/interop.js';
import { javaSkip } from '../../helpers/requirements.js';
import { wireCall } from '../../helpers/wire-call.js';

async function features(bootstrap: string, ...args: string[]): Promise<{ code: number | null; out: string }> {
  const r = await runProcess(
    'java',
    [
      '-Xmx256m',
      '-XX:TieredStopAtLevel=1',
      '-cp',
      kafkaClasspath(),
      'org.apache.kafka.tools.FeatureCommand',
      '--bootstrap-server',
      bootstrap,
      ...args,
    ],
    '',
    120_000,
  );
  return { code: r.code, out: r.stdout.toString('utf8') + r.stderr };
}

/** `describe`'s lines as feature → [finalized level, epoch]. */
function described(out: string): Record<string, [number, number]> {
  const levels: Record<string, [number, number]> = {};
  for (const m of out.matchAll(
    /Feature: (\S+)\s+SupportedMinVersion: \d+\s+SupportedMaxVersion: \d+\s+FinalizedVersionLevel: (\d+)\s+Epoch: (\d+)/g,
  )) {
    levels[m[1]!] = [Number(m[2]), Number(m[3])];
  }
  return levels;
}

describe("Kafka's kafka-features.sh against Sluice", { skip: javaSkip() }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sluice-features-'));
  let broker: BrokerProcess;
  before(async () => {
    broker = await startBrokerProcess({ 'log.dirs': dataDir });
  });
  after(async () => {
    await broker?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('describe, downgrade, a refused upgrade, disable; the levels survive a restart', async () => {
    const first = await features(broker.bootstrap, 'describe');
    assert.equal(first.code, 0, first.out);
    assert.deepEqual(described(first.out), { 'group.version': [1, 0], 'share.version': [2, 0], 'transaction.version': [2, 0] });

    const down = await features(broker.bootstrap, 'downgrade', '--feature', 'transaction.version=1');
    assert.equal(down.code, 0, down.out);
    assert.match(down.out, /transaction\.version was downgraded to 1\./);

    const refused = await features(broker.bootstrap, 'upgrade', '--feature', 'group.version=5');
    assert.equal(refused.code, 1, refused.out);
    assert.match(refused.out, /Could not upgrade group\.version to 5\..*only supports versions 0-1/s);

    const disabled = await features(broker.bootstrap, 'disable', '--feature', 'share.version');
    assert.equal(disabled.code, 0, disabled.out);
    const heartbeat = await wireCall(broker.bootstrap, M.ShareGroupHeartbeatRequest, M.ShareGroupHeartbeatResponse, 1, {
      groupId: 'g',
      memberId: 'mmmmmmmmmmmmmmmmmmmmmm',
      memberEpoch: 0,
      subscribedTopicNames: ['t'],
    });
    assert.equal(heartbeat.errorCode, ErrorCode.UNSUPPORTED_VERSION, 'share groups are off at share.version 0');

    await broker.stop();
    broker = await startBrokerProcess({ 'log.dirs': dataDir });
    const after = await features(broker.bootstrap, 'describe');
    assert.deepEqual(described(after.out), { 'group.version': [1, 2], 'share.version': [0, 2], 'transaction.version': [1, 2] });
  });
});
