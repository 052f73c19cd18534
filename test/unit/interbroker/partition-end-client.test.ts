/**
 * ListOffsets LATEST to a partition leader on another broker, against a real broker in this
 * process: each partition's high watermark answered in the order asked (one with records, an
 * empty one, one that does not exist), and a broker the metadata does not know
 * (LEADER_NOT_AVAILABLE, as Kafka's partition metadata client answers a partition without a leader).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Kafka, logLevel } from 'kafkajs';
import { MetadataImage, type MetadataSource } from '../../../src/metadata/metadata-image.js';
import { Logger } from '../../../src/common/logger.js';
import { BrokerConnections } from '../../../src/interbroker/broker-connections.js';
import { PartitionEndClient } from '../../../src/interbroker/partition-end-client.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { startInProcessBrokers, type InProcessBrokers } from '../../helpers/in-process-brokers.js';

const BROKER = 1;
const UNKNOWN_BROKER = 7;

describe('PartitionEndClient', () => {
  let brokers: InProcessBrokers;
  let connections: BrokerConnections;
  let ends: PartitionEndClient;

  before(async () => {
    brokers = await startInProcessBrokers(1);
    const b = brokers.brokers[0]!;
    const kafka = new Kafka({ brokers: [b.bootstrap], logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'ends', numPartitions: 2 }] });
    await admin.disconnect();
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: 'ends', acks: -1, messages: ['a', 'b', 'c'].map((value) => ({ partition: 1, value })) });
    await producer.disconnect();
    const image = new MetadataImage({
      clusterId: 'c1uSTeR1dAAAAAAAAAAAAA',
      controllerId: BROKER,
      brokers: [{ nodeId: BROKER, host: b.host, port: b.port, rack: null, endpoints: [] }],
      topics: [],
      dynamicConfigs: { clusterDefault: new Map(), node: new Map() },
      clientEntities: new Map(),
    });
    const metadata: MetadataSource = { image };
    connections = new BrokerConnections(metadata, 'partition-end-test', 2000, null);
    ends = new PartitionEndClient(connections, new Logger('test'));
  });

  after(async () => {
    connections?.close();
    await brokers?.stop();
  });

  test('each partition answered in the order asked', async () => {
    const answers = await ends.latestOffsets(BROKER, [
      { topic: 'ends', partition: 1 },
      { topic: 'missing', partition: 0 },
      { topic: 'ends', partition: 0 },
    ]);
    assert.deepEqual(answers, [
      { errorCode: ErrorCode.NONE, offset: 3n },
      { errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, offset: -1n },
      { errorCode: ErrorCode.NONE, offset: 0n },
    ]);
  });

  test('a broker the metadata does not know answers LEADER_NOT_AVAILABLE for each partition', async () => {
    assert.deepEqual(await ends.latestOffsets(UNKNOWN_BROKER, [{ topic: 'ends', partition: 0 }]), [
      { errorCode: ErrorCode.LEADER_NOT_AVAILABLE, offset: -1n },
    ]);
  });
});
