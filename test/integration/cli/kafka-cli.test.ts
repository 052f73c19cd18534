/**
 * The `sluice` client tools against a real Apache Kafka of the pinned release (one KRaft node
 * for the whole file). Skipped when Java or the Kafka jars are missing and cannot be fetched.
 */
import { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startKafka, type KafkaHandle } from '../../../tools/kafka/kafka-process.js';
import { cliScenario } from './cli-scenario.js';
import { groupsScenario } from './groups-scenario.js';
import { javaSkip } from '../../helpers/requirements.js';
import { freePort } from '../../../src/common/free-port.js';

describe('sluice CLI against Apache Kafka', { skip: javaSkip() }, () => {
  let kafka: KafkaHandle | undefined;
  let logDir: string | undefined;
  before(async () => {
    logDir = mkdtempSync(join(tmpdir(), 'sluice-cli-kafka-'));
    kafka = await startKafka({ port: await freePort(), controllerPort: await freePort(), logDir, heap: '384m' });
    assert.match(kafka.bootstrap, /:\d+$/, 'Kafka reports the address it listens on');
  });
  after(async () => {
    await kafka?.stop();
    if (logDir !== undefined) rmSync(logDir, { recursive: true, force: true });
  });

  cliScenario(() => kafka!.bootstrap);
  groupsScenario(() => kafka!.bootstrap);
});
