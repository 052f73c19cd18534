/**
 * The transaction requests between brokers against a real broker in this process: WriteTxnMarkers
 * answered per partition in the order asked (a partition that does not exist, one that does and
 * gets its marker), AddPartitionsToTxn v4+ verifying with the coordinator, a broker the metadata
 * does not know (NOT_LEADER_OR_FOLLOWER, to be retried once metadata names the leader) and a
 * broker that does not answer (NETWORK_EXCEPTION, the connection dropped for the next try).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MetadataImage, type MetadataSource } from '../../../src/metadata/metadata-image.js';
import { Logger } from '../../../src/common/logger.js';
import { freePort } from '../../../src/common/free-port.js';
import { BrokerConnections } from '../../../src/interbroker/broker-connections.js';
import { TransactionPeerClient } from '../../../src/interbroker/transaction-peer-client.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { startInProcessBrokers, type InProcessBrokers } from '../../helpers/in-process-brokers.js';
import { Kafka, logLevel } from 'kafkajs';

const BROKER = 1;
const UNKNOWN_BROKER = 7;
const SILENT_BROKER = 8;

describe('TransactionPeerClient', () => {
  let brokers: InProcessBrokers;
  let peers: TransactionPeerClient;
  let connections: BrokerConnections;

  before(async () => {
    brokers = await startInProcessBrokers(1);
    const b = brokers.brokers[0]!;
    const admin = new Kafka({ brokers: [b.bootstrap], logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'peer', numPartitions: 2 }] });
    await admin.disconnect();
    const silentPort = await freePort();
    const image = new MetadataImage({
      clusterId: 'c1uSTeR1dAAAAAAAAAAAAA',
      controllerId: BROKER,
      brokers: [
        { nodeId: BROKER, host: b.host, port: b.port, rack: null, endpoints: [] },
        { nodeId: SILENT_BROKER, host: '127.0.0.1', port: silentPort, rack: null, endpoints: [] },
      ],
      topics: [],
      dynamicConfigs: { clusterDefault: new Map(), node: new Map() },
      clientEntities: new Map(),
    });
    const metadata: MetadataSource = { image };
    connections = new BrokerConnections(metadata, 'peer-test', 2000, null);
    peers = new TransactionPeerClient(connections, new Logger('test'));
  });

  after(async () => {
    connections?.close();
    await brokers?.stop();
  });

  test('WriteTxnMarkers: each partition answered in the order asked', async () => {
    const answers = await peers.writeMarkers(BROKER, {
      producerId: 42n,
      producerEpoch: 0,
      coordinatorEpoch: 0,
      commit: false,
      transactionVersion: 2,
      partitions: [
        { topic: 'missing', partition: 0 },
        { topic: 'peer', partition: 1 },
        { topic: 'peer', partition: 0 },
      ],
    });
    assert.deepEqual(
      answers.map((a) => [a.topic, a.partition, a.errorCode]),
      [
        ['missing', 0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION],
        ['peer', 1, ErrorCode.NONE],
        ['peer', 0, ErrorCode.NONE],
      ],
    );
  });

  test('AddPartitionsToTxn verifyOnly: a transaction the coordinator does not know is refused for each partition', async () => {
    const answers = await peers.addPartitions(BROKER, {
      transactionalId: 'nobody',
      producerId: 5n,
      producerEpoch: 0,
      verifyOnly: true,
      partitions: [{ topic: 'peer', partition: 0 }],
    });
    assert.equal(answers.length, 1);
    assert.notEqual(answers[0]!.errorCode, ErrorCode.NONE);
  });

  test('a broker the metadata does not know answers NOT_LEADER_OR_FOLLOWER; one that cannot be reached NETWORK_EXCEPTION', async () => {
    const partitions = [{ topic: 'peer', partition: 0 }];
    const marker = { producerId: 1n, producerEpoch: 0, coordinatorEpoch: 0, commit: true, transactionVersion: 2, partitions };
    assert.deepEqual(
      (await peers.writeMarkers(UNKNOWN_BROKER, marker)).map((a) => a.errorCode),
      [ErrorCode.NOT_LEADER_OR_FOLLOWER],
    );
    assert.deepEqual(
      (await peers.writeMarkers(SILENT_BROKER, marker)).map((a) => a.errorCode),
      [ErrorCode.NETWORK_EXCEPTION],
    );
  });
});
