/**
 * Apache Kafka (the pinned release, one KRaft node) and a Sluice broker process, started side
 * by side for the tests of one `describe` block, for differential tests that send both the same
 * requests. Call it inside the block: it registers the block's `before` and `after` hooks.
 */
import { after, before } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startKafka, type KafkaHandle } from '../../tools/kafka/kafka-process.js';
import { startBrokerProcess, type BrokerProcess } from './broker-process.js';
import { freePort } from './interop.js';

export interface SideBySide {
  readonly kafka: KafkaHandle;
  readonly sluice: BrokerProcess;
}

/**
 * Both brokers, for use inside the block's tests; `sluiceOverrides` are Sluice's config keys,
 * `kafkaConfig` Kafka's server.properties additions.
 */
export function sideBySide(sluiceOverrides: Record<string, string> = {}, kafkaConfig: Record<string, string> = {}): () => SideBySide {
  let running: SideBySide | undefined;
  let kafkaDir: string | undefined;
  before(async () => {
    kafkaDir = mkdtempSync(join(tmpdir(), 'sluice-compat-kafka-'));
    const [kafka, sluice] = await Promise.all([
      startKafka({ port: await freePort(), controllerPort: await freePort(), logDir: kafkaDir, heap: '384m', config: kafkaConfig }),
      startBrokerProcess(sluiceOverrides),
    ]);
    running = { kafka, sluice };
  });
  after(async () => {
    await Promise.all([running?.kafka.stop(), running?.sluice.stop()]);
    if (kafkaDir !== undefined) rmSync(kafkaDir, { recursive: true, force: true });
  });
  return () => {
    if (running === undefined) throw new Error('the brokers are started by the describe block that called sideBySide');
    return running;
  };
}
