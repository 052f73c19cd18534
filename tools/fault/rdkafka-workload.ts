/**
 * The librdkafka workload, in this process through @confluentinc/kafka-javascript: an
 * idempotent acks=all producer (its delivery reports give partition and offset) and a group
 * consumer committing what it has read every COMMIT_EVERY_MS, one commit at a time.
 */
import { createWriteStream } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { Kafka, logLevel } from 'kafkajs';
import { confluentKafka, type CkConsumer, type CkProducer } from '../../test/helpers/confluent-js.js';
import type { Recorder } from './recorder.js';
import type { Workload, WorkloadSettings } from './workload.js';

const CLIENT = 'librdkafka';
const COMMIT_EVERY_MS = 500;
/** How long librdkafka keeps retrying one message before reporting it timed out. */
const MESSAGE_TIMEOUT_MS = 60_000;
/** librdkafka's codes for a message or request that timed out: the write may be stored. */
const TIMED_OUT = new Set([-192, -185]);

interface CodedError {
  readonly code?: number;
  readonly message?: string;
}

export async function startRdkafkaWorkload(
  settings: WorkloadSettings,
  recorder: Recorder,
  writer: string,
  group: string,
  onProblem: (line: string) => void,
): Promise<Workload> {
  const kafka = confluentKafka(settings.bootstrap);
  const log = createWriteStream(settings.logFile);
  const producer: CkProducer = kafka.producer({
    kafkaJS: { acks: -1, idempotent: true, retry: { retries: 1_000_000 } },
    'message.timeout.ms': MESSAGE_TIMEOUT_MS,
  });
  const consumer: CkConsumer = kafka.consumer({
    kafkaJS: { groupId: group, fromBeginning: true, autoCommit: false, sessionTimeout: 10_000, heartbeatInterval: 1_000 },
  });
  const observer = new Kafka({ brokers: settings.bootstrap.split(','), logLevel: logLevel.NOTHING, retry: { retries: 3 } }).admin();
  await observer.connect();
  await producer.connect();
  await consumer.connect();
  await consumer.subscribe({ topics: [settings.topic] });

  const readUpTo = new Map<number, number>();
  void consumer.run({
    eachMessage: async ({ partition, message }) => {
      const offset = Number(message.offset);
      recorder.consumed.push({ group, partition, offset, value: message.value?.toString() ?? '' });
      readUpTo.set(partition, offset + 1);
    },
  });

  let stopping = false;
  const inFlight = new Set<Promise<void>>();
  const send = (seq: number): void => {
    const value = `${writer}-${seq}`;
    const partition = seq % settings.partitions;
    recorder.sent(CLIENT, value, partition, Date.now());
    const p = producer
      .send({ topic: settings.topic, messages: [{ value, partition }] })
      .then(
        ([md]) => {
          // librdkafka acknowledges a message without an offset (-1001) when a later one's
          // acknowledgement covers it (its own answer was lost): acked, where unknown.
          const offset = Number(md!.baseOffset);
          recorder.done(value, 'acked', Date.now(), offset >= 0 ? { offset } : {});
        },
        (err: CodedError) => {
          const timedOut = (err.code !== undefined && TIMED_OUT.has(err.code)) || /timed out/i.test(err.message ?? '');
          recorder.done(value, timedOut ? 'unknown' : 'failed', Date.now(), { error: `${err.code ?? ''} ${err.message ?? String(err)}` });
        },
      )
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  };
  const producing = (async () => {
    for (let seq = 0; !stopping; seq++) {
      send(seq);
      await sleep(settings.intervalMs);
    }
  })();

  const commitOnce = async (): Promise<void> => {
    const offsets = [...readUpTo].map(([partition, offset]) => ({ topic: settings.topic, partition, offset: String(offset) }));
    if (offsets.length === 0) return;
    try {
      // commitOffsets only queues the commit (librdkafka's commitAsync): what counts is what the
      // coordinator then holds, read over the wire by KafkaJS (the package's own committed()
      // throws from a native callback on a coordinator error, taking the process down).
      await consumer.commitOffsets(offsets);
      const [held] = await observer.fetchOffsets({ groupId: group, topics: [settings.topic] });
      const atMs = Date.now();
      for (const o of held?.partitions ?? [])
        if (Number(o.offset) >= 0) recorder.commits.push({ group, partition: o.partition, offset: Number(o.offset), atMs });
    } catch (err) {
      // A commit that fails during a fault is made again by the next round.
      log.write(`commit failed: ${err instanceof Error ? err.message : String(err)}\n`);
    }
  };
  const committing = (async () => {
    while (!stopping) {
      await commitOnce();
      await sleep(COMMIT_EVERY_MS);
    }
  })();

  return {
    client: CLIENT,
    writer,
    async stop() {
      stopping = true;
      await producing;
      await committing;
      const bound = new AbortController();
      const deadline = sleep(MESSAGE_TIMEOUT_MS + 10_000, undefined, { signal: bound.signal }).then(
        () => 'timeout' as const,
        () => 'settled' as const,
      );
      if ((await Promise.race([Promise.allSettled([...inFlight]), deadline])) === 'timeout') {
        onProblem(`${inFlight.size} librdkafka sends had no delivery report ${MESSAGE_TIMEOUT_MS + 10_000} ms after the run`);
      }
      bound.abort();
      await producer.disconnect();
      await consumer.disconnect();
      await observer.disconnect();
      const admin = kafka.admin();
      await admin.connect();
      try {
        for (const t of await admin.fetchOffsets({ groupId: group, topics: [settings.topic] })) {
          for (const p of t.partitions)
            if (Number(p.offset) >= 0) recorder.fetchedOffsets.push({ group, partition: p.partition, offset: Number(p.offset) });
        }
      } finally {
        await admin.disconnect();
        log.end();
      }
    },
  };
}
