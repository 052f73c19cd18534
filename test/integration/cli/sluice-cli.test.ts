/**
 * The same `sluice` client-tool scenarios (tools, groups) as against Apache Kafka (kafka-cli.test.ts), against
 * Sluice's own broker process: the tools and the broker agree with each other as they do with Kafka.
 */
import { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { startBrokerProcess, type BrokerProcess } from '../../helpers/broker-process.js';
import { cliScenario } from './cli-scenario.js';
import { groupsScenario } from './groups-scenario.js';

describe('sluice CLI against the Sluice broker', () => {
  let broker: BrokerProcess | undefined;
  before(async () => {
    // KafkaJS members join at once instead of waiting out Kafka's 3 s initial rebalance delay.
    broker = await startBrokerProcess({ 'group.initial.rebalance.delay.ms': '0' });
    assert.match(broker.bootstrap, /^127\.0\.0\.1:\d+$/, 'the broker advertises its loopback listener');
  });
  after(async () => {
    await broker?.stop();
  });
  const bootstrap = (): string => {
    if (broker === undefined) throw new Error('broker not started');
    return broker.bootstrap;
  };
  cliScenario(bootstrap);
  groupsScenario(bootstrap);
});
