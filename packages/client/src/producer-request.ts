/**
 * What both producers (`KafkaProducerClient`, one batch per call, and `BatchingProducer`, with
 * an accumulator) share: encoding one partition's records as a magic-2 batch, and sending one
 * leader one Produce request for several partitions' batches, answering per partition what was
 * appended and what failed.
 */
import { ErrorCode } from '@sluice/protocol/errors.js';
import { ProduceRequest, ProduceResponse, type ProduceResponseData } from '@sluice/protocol/messages/index.js';
import { type CompressionType, encodeRecordBatch, type RecordHeaderInput } from '@sluice/protocol/records/index.js';
import { brokerError } from './client-errors.js';
import type { TopicMetadata } from './cluster-metadata.js';
import type { KafkaConnection } from './connection.js';
import { compressRecords } from './compression-codecs.js';

export interface ProducerRecord {
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly partition?: number;
  readonly headers?: readonly RecordHeaderInput[];
  /** CreateTime in epoch milliseconds; defaults to now. */
  readonly timestamp?: bigint;
}

export type Acks = -1 | 0 | 1;

export interface PartitionAppend {
  readonly partition: number;
  /** The offset of the batch's first record; -1 with acks=0, which gets no answer. */
  readonly baseOffset: bigint;
  readonly recordCount: number;
}

/** One partition's encoded batch, ready for a Produce request. */
export interface EncodedBatch {
  readonly bytes: Buffer;
  readonly recordCount: number;
}

export interface ProduceSettings {
  readonly acks: Acks;
  /** How long the leader may wait for replicas when acks=-1 (Produce `timeoutMs`). */
  readonly ackTimeoutMs: number;
}

/** One topic's share of a Produce request. */
export interface TopicBatches {
  readonly topic: TopicMetadata;
  readonly batches: ReadonlyArray<readonly [number, EncodedBatch]>;
}

export interface PartitionFailure {
  readonly topic: string;
  readonly partition: number;
  readonly error: unknown;
}

/** What one leader took and what failed, so that one partition's error does not lose the others' offsets. */
export interface LeaderOutcome {
  readonly appended: Array<PartitionAppend & { readonly topic: string }>;
  readonly failures: PartitionFailure[];
}

export const NO_OFFSET = -1n;

/** `timestamp` is used for records without their own. */
export function encodeBatch(records: readonly ProducerRecord[], compression: CompressionType, timestamp: bigint): EncodedBatch {
  const bytes = encodeRecordBatch(
    {
      compression,
      records: records.map((r) => ({ key: r.key, value: r.value, headers: r.headers ?? [], timestamp: r.timestamp ?? timestamp })),
    },
    compressRecords,
  );
  return { bytes, recordCount: records.length };
}

/**
 * Sends the batches in one Produce request. With acks=0 the broker never answers: the batches
 * count as appended (at offset -1) once the request is handed to the socket.
 */
export async function producePartitions(
  connection: KafkaConnection,
  topics: readonly TopicBatches[],
  settings: ProduceSettings,
): Promise<LeaderOutcome> {
  const body = () => ({
    transactionalId: null,
    acks: settings.acks,
    timeoutMs: settings.ackTimeoutMs,
    // Produce v13 names the topic by id, earlier versions by name; each version writes the one it has.
    topicData: topics.map((t) => ({
      name: t.topic.name,
      topicId: t.topic.topicId,
      partitionData: t.batches.map(([index, batch]) => ({ index, records: batch.bytes })),
    })),
  });
  if (settings.acks === 0) {
    await connection.requestWithoutResponse(ProduceRequest, body);
    return {
      appended: topics.flatMap((t) =>
        t.batches.map(([partition, batch]) => ({ topic: t.topic.name, partition, baseOffset: NO_OFFSET, recordCount: batch.recordCount })),
      ),
      failures: [],
    };
  }
  const res = await connection.request(ProduceRequest, ProduceResponse, body, { timeoutMs: settings.ackTimeoutMs + 5_000 });
  return partitionResults(res, topics);
}

function partitionResults(res: ProduceResponseData, topics: readonly TopicBatches[]): LeaderOutcome {
  const outcome: LeaderOutcome = { appended: [], failures: [] };
  for (const sent of topics) {
    const topic = sent.topic.name;
    // Produce v13 answers with the topic id and an empty name.
    const answer = res.responses.find((t) => t.name === topic || (t.name === '' && t.topicId === sent.topic.topicId));
    for (const [partition, batch] of sent.batches) {
      const p = answer?.partitionResponses.find((r) => r.index === partition);
      if (p === undefined) {
        outcome.failures.push({
          topic,
          partition,
          error: brokerError(ErrorCode.UNKNOWN_SERVER_ERROR, `no answer for partition ${partition}`, `produce to topic '${topic}'`),
        });
      } else if (p.errorCode === ErrorCode.NONE) {
        outcome.appended.push({ topic, partition, baseOffset: p.baseOffset, recordCount: batch.recordCount });
      } else {
        const detail = p.errorMessage ?? p.recordErrors.map((e) => e.batchIndexErrorMessage).find((m) => m !== null) ?? null;
        outcome.failures.push({
          topic,
          partition,
          error: brokerError(p.errorCode, detail, `produce to topic '${topic}' partition ${partition}`),
        });
      }
    }
  }
  return outcome;
}
