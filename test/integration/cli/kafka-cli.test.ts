/**
 * The `sluice` client tools against a real Apache Kafka of the pinned release (one KRaft node
 * for the whole file). Skipped when Java or the Kafka jars are missing and cannot be fetched.
 */
import { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startKafka, type KafkaHandle } from '../../../tools/kafka/kafka-process.js';
import { cliScenario } from './cli-scenario.js';
import { groupsScenario } from './groups-scenario.js';
import { javaSkip } from '../../helpers/requirements.js';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

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
