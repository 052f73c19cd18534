/**
 * The same `sluice` client-tool scenario as against Apache Kafka (kafka-cli.test.ts), against
 * Sluice's own broker process: the tools and the broker agree with each other as they do with Kafka.
 */
import { after, before, describe } from 'node:test';
import { startBrokerProcess, type BrokerProcess } from '../../helpers/broker-process.js';
import { cliScenario } from './cli-scenario.js';

describe('sluice CLI against the Sluice broker', () => {
  let broker: BrokerProcess | undefined;
  before(async () => {
    broker = await startBrokerProcess();
  });
  after(async () => {
    await broker?.stop();
  });
  cliScenario(() => {
    if (broker === undefined) throw new Error('broker not started');
    return broker.bootstrap;
  });
});
