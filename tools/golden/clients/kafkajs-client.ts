// Drives KafkaJS through admin, produce (uncompressed and gzip) and a consumer group, so that the
// proxy records the frames of each step under its own scenario label.
import kafkajs from 'kafkajs';

const { Kafka, CompressionTypes, Partitioners, logLevel } = kafkajs;

export interface ClientRun {
  bootstrap: string;
  topic: string;
  groupId: string;
  /** Called before each step so the proxy labels the frames the step causes. */
  scenario(name: string): void;
}

export class ClientDriverError extends Error {
  override name = 'ClientDriverError';
}

const MESSAGES_PER_BATCH = 3;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function batch(codec: string): { key: string; value: string; headers: Record<string, string>; timestamp: string }[] {
  // Recent explicit timestamps: older ones would be deleted at once by time-based retention.
  const base = Math.floor(Date.now() / 1000) * 1000 - 60_000;
  return Array.from({ length: MESSAGES_PER_BATCH }, (_, i) => ({
    key: `key-${codec}-${i}`,
    value: `value ${i} from kafkajs, ${codec}`,
    headers: { source: 'kafkajs', codec },
    timestamp: String(base + i * 1000),
  }));
}

export async function driveKafkaJs(run: ClientRun): Promise<void> {
  const kafka = new Kafka({ clientId: 'golden-kafkajs', brokers: [run.bootstrap], logLevel: logLevel.WARN });

  run.scenario('admin');
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: run.topic, numPartitions: 1, replicationFactor: 1 }], waitForLeaders: true });
  await admin.fetchTopicMetadata({ topics: [run.topic] });

  const producer = kafka.producer({ allowAutoTopicCreation: false, createPartitioner: Partitioners.DefaultPartitioner });
  run.scenario('produce-none');
  await producer.connect();
  await producer.send({ topic: run.topic, acks: -1, compression: CompressionTypes.None, messages: batch('none') });
  run.scenario('produce-gzip');
  await producer.send({ topic: run.topic, acks: -1, compression: CompressionTypes.GZIP, messages: batch('gzip') });
  await producer.disconnect();

  run.scenario('list-offsets');
  await admin.fetchTopicOffsets(run.topic);

  run.scenario('consume');
  const expected = 2 * MESSAGES_PER_BATCH;
  const consumer = kafka.consumer({ groupId: run.groupId, heartbeatInterval: 100, sessionTimeout: 10_000, maxWaitTimeInMs: 200 });
  await consumer.connect();
  await consumer.subscribe({ topic: run.topic, fromBeginning: true });
  let received = 0;
  const allReceived = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new ClientDriverError(`KafkaJS consumer got ${received}/${expected} messages`)), 30_000);
    void consumer.run({
      autoCommitInterval: 100,
      eachMessage: async () => {
        received += 1;
        if (received >= expected) {
          clearTimeout(timer);
          resolve();
        }
      },
    });
  });
  await allReceived;
  // Let a few heartbeats and an interval commit go out before leaving the group.
  await sleep(1000);
  await consumer.disconnect();

  run.scenario('group-admin');
  await admin.fetchOffsets({ groupId: run.groupId, topics: [run.topic] });
  await admin.describeGroups([run.groupId]);
  await admin.listGroups();
  await admin.disconnect();
}
