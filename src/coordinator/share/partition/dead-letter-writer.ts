/**
 * The share groups' dead-letter queue (KIP-1191) on a partition leader, as Kafka 4.4's
 * `ShareGroupDLQStateManager` writes it: for each run of offsets a share partition gave up on,
 * check the group's dead-letter topic against Kafka's rules (every setting involved is dynamic,
 * so at every write), create it when it is missing and the cluster allows that, read the source
 * records when the group copies them, and append one dead-letter record per offset, with the
 * context headers, to the dead-letter partition the source partition maps to. A write that
 * cannot be done is logged with Kafka's message and counted: the records are archived anyway.
 *
 * Where the topics live is the `DeadLetterCluster` port, which the composition root implements
 * over the metadata, the topic admin and the partition owners. Main thread.
 */
import { ErrorCode, errorName } from '@sluice/protocol/errors.js';
import {
  encodeRecordBatch,
  lastOffsetOf,
  readRecords,
  validateBatches,
  type RecordHeader,
  type RecordInput,
} from '@sluice/protocol/records/index.js';
import { decompress } from '../../../native/index.js';
import type { Logger } from '../../../common/logger.js';
import type { SharePartitionKey } from '../share-state-persister.js';
import type { DeadLetterQueue, DeadLetterRange } from './dead-letter.js';
import {
  DLQ_TOPIC_CONFIGS,
  deadLetterHeaders,
  deadLetterPartition,
  deadLetterSource,
  deadLetterTopicProblem,
  type DeadLetterSettings,
} from './dead-letter-rules.js';

/** An existing dead-letter topic as a write needs it. */
export interface DeadLetterTopic {
  readonly partitions: number;
  /** Its `errors.deadletterqueue.group.enable`. */
  readonly enabled: boolean;
  /** Its `max.message.bytes`: a run that does not fit one batch goes out in several. */
  readonly maxMessageBytes: number;
}

/** Record batches read from a partition, and where its log ends. */
export interface PartitionBytes {
  readonly errorCode: number;
  readonly bytes: Buffer;
  readonly logEndOffset: bigint;
}

export interface DeadLetterCluster {
  /** The group's dead-letter settings with the cluster's. */
  settings(groupId: string): DeadLetterSettings;
  /** The name of the topic with this id, or null. */
  topicName(topicId: string): string | null;
  topic(name: string): DeadLetterTopic | null;
  /** Creates the topic with the broker's default partitions and replicas and these configs. */
  createTopic(
    name: string,
    configs: ReadonlyMap<string, string>,
  ): Promise<{ readonly errorCode: number; readonly errorMessage: string | null }>;
  /** Appends one batch with acks=all; resolves with the Kafka error code. */
  append(topic: string, partition: number, batch: Buffer): Promise<number>;
  logStartOffset(topic: string, partition: number): Promise<{ readonly errorCode: number; readonly offset: bigint }>;
  read(topic: string, partition: number, offset: bigint, maxBytes: number): Promise<PartitionBytes>;
  /** Resolves after `ms`: the pause between attempts. */
  sleep(ms: number): Promise<void>;
  /** Milliseconds since the epoch: every dead-letter record's timestamp is its write time. */
  now(): number;
}

/** Told after each run: how many dead-letter records group `groupId` got, and whether the run failed. */
export type DeadLetterCounter = (groupId: string, written: number, failed: boolean) => void;

/** Kafka's `ShareGroupDLQStateManager`: 5 attempts, 1 s apart at first, doubling up to 30 s. */
const MAX_ATTEMPTS = 5;
const BACKOFF_MS = 1000;
const BACKOFF_MAX_MS = 30_000;
/** Kafka's `DLQ_MAX_FETCH_BYTES`: most runs are single offsets. */
const READ_BYTES = 1024 * 1024;

class DeadLetterFailure extends Error {
  override readonly name = 'DeadLetterFailure';
}

export class DeadLetterWriter implements DeadLetterQueue {
  constructor(
    private readonly cluster: DeadLetterCluster,
    private readonly log: Logger,
    private readonly counted: DeadLetterCounter,
  ) {}

  async write(key: SharePartitionKey, range: DeadLetterRange): Promise<void> {
    try {
      const written = await this.writeRange(key, range);
      this.counted(key.groupId, written, false);
    } catch (err) {
      // Kafka's SharePartition: "Failed to write to DLQ, proceeding to ARCHIVED regardless."
      this.log.warn('dead-letter write failed; the records are archived without it', {
        group: key.groupId,
        topicId: key.topicId,
        partition: key.partition,
        firstOffset: String(range.firstOffset),
        lastOffset: String(range.lastOffset),
        error: err instanceof Error ? err.message : String(err),
      });
      this.counted(key.groupId, 0, true);
    }
  }

  private async writeRange(key: SharePartitionKey, range: DeadLetterRange): Promise<number> {
    const settings = this.cluster.settings(key.groupId);
    const problem = deadLetterTopicProblem(key.groupId, settings, this.cluster.topic(settings.topic));
    if (problem !== null) throw new DeadLetterFailure(problem);
    const topic = await this.ensureTopic(settings.topic);
    const sourceTopic = this.cluster.topicName(key.topicId) ?? key.topicId;
    const partition = deadLetterPartition(key.partition, topic.partitions);
    const done = range.resumed ? await this.alreadyWritten(settings.topic, partition, key, sourceTopic, range) : new Set<bigint>();
    const sources = settings.copyRecord ? await this.sourceRecords(sourceTopic, key.partition, range) : new Map<bigint, SourceRecord>();
    const records: RecordInput[] = [];
    const timestamp = BigInt(this.cluster.now());
    for (let offset = range.firstOffset; offset <= range.lastOffset; offset++) {
      if (done.has(offset)) continue;
      const source = sources.get(offset);
      records.push({
        key: source?.key ?? null,
        value: source?.value ?? null,
        headers: deadLetterHeaders({ ...key, topic: sourceTopic, offset, deliveryCount: range.deliveryCount, cause: range.cause }),
        timestamp,
      });
    }
    for (const batch of batchesWithin(records, topic.maxMessageBytes))
      await this.attempt(`append to ${settings.topic}-${partition}`, () => this.cluster.append(settings.topic, partition, batch));
    return records.length;
  }

  /** The topic, created as Kafka creates it when it is missing (the rules allowed that). */
  private async ensureTopic(name: string): Promise<DeadLetterTopic> {
    let topic = this.cluster.topic(name);
    if (topic === null) {
      await this.attempt(`create ${name}`, async () => {
        const created = await this.cluster.createTopic(name, DLQ_TOPIC_CONFIGS);
        // Another share partition may have created it in the meantime.
        return created.errorCode === ErrorCode.TOPIC_ALREADY_EXISTS ? ErrorCode.NONE : created.errorCode;
      });
      topic = this.cluster.topic(name);
      if (topic === null) throw new DeadLetterFailure(`DLQ topic ${name} was created but is not in the metadata`);
    }
    return topic;
  }

  /** Runs `op` until it answers NONE, Kafka's number of times with Kafka's backoff; throws its last error. */
  private async attempt(what: string, op: () => Promise<number>): Promise<void> {
    let errorCode: number = ErrorCode.NONE;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      if (attempt > 0) await this.cluster.sleep(Math.min(BACKOFF_MS * 2 ** (attempt - 1), BACKOFF_MAX_MS));
      errorCode = await op();
      if (errorCode === ErrorCode.NONE) return;
    }
    throw new DeadLetterFailure(`${what}: ${errorName(errorCode)} after ${MAX_ATTEMPTS} attempts`);
  }

  /** The records of the source range that are still in the log (retention may have removed some: those get headers only, as in Kafka). */
  private async sourceRecords(topic: string, partition: number, range: DeadLetterRange): Promise<Map<bigint, SourceRecord>> {
    const out = new Map<bigint, SourceRecord>();
    await this.scan(topic, partition, range.firstOffset, range.lastOffset, (offset, record) => {
      if (offset >= range.firstOffset && offset <= range.lastOffset) out.set(offset, record);
    });
    return out;
  }

  /**
   * The offsets of the range a leader before this one already wrote to the dead-letter partition:
   * that partition is read from its start, once per share partition that resumes ARCHIVING
   * records, so that a leader change writes no dead letter twice.
   */
  private async alreadyWritten(
    topic: string,
    partition: number,
    key: SharePartitionKey,
    sourceTopic: string,
    range: DeadLetterRange,
  ): Promise<Set<bigint>> {
    const start = await this.cluster.logStartOffset(topic, partition);
    if (start.errorCode === ErrorCode.NOT_LEADER_OR_FOLLOWER || start.errorCode === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION) {
      // Led by another broker: this one cannot read it, and writes them all again, as Kafka always does.
      this.log.info('dead-letter partition led elsewhere; resumed records are written without looking for earlier copies', {
        topic,
        partition,
        group: key.groupId,
      });
      return new Set();
    }
    if (start.errorCode !== ErrorCode.NONE)
      throw new DeadLetterFailure(`log start of ${topic}-${partition}: ${errorName(start.errorCode)}`);
    const done = new Set<bigint>();
    await this.scan(topic, partition, start.offset, null, (_, record) => {
      const source = deadLetterSource(record.headers, key.groupId, sourceTopic, key.partition);
      if (source !== null && source >= range.firstOffset && source <= range.lastOffset) done.add(source);
    });
    return done;
  }

  /** Hands `visit` every record of the partition from `from` to `to` (null: its log end). */
  private async scan(
    topic: string,
    partition: number,
    from: bigint,
    to: bigint | null,
    visit: (offset: bigint, record: SourceRecord) => void,
  ): Promise<void> {
    let offset = from;
    for (;;) {
      const chunk = await this.cluster.read(topic, partition, offset, READ_BYTES);
      if (chunk.errorCode === ErrorCode.OFFSET_OUT_OF_RANGE) return;
      if (chunk.errorCode !== ErrorCode.NONE) throw new DeadLetterFailure(`read ${topic}-${partition}: ${errorName(chunk.errorCode)}`);
      const scan = validateBatches(chunk.bytes);
      if (!scan.ok) throw new DeadLetterFailure(`read ${topic}-${partition}: ${errorName(scan.error.code)}`);
      if (scan.batches.length === 0) return;
      for (const header of scan.batches) {
        for (const record of readRecords(chunk.bytes, header, { decompress })) visit(record.offset, record);
        offset = lastOffsetOf(header) + 1n;
      }
      if (offset >= chunk.logEndOffset || (to !== null && offset > to)) return;
    }
  }
}

interface SourceRecord {
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: readonly RecordHeader[];
}

/**
 * The records as uncompressed batches of at most `maxBytes` each, as Kafka's rounds: a record too
 * large on its own still goes, alone, for the log to refuse.
 */
export function batchesWithin(records: readonly RecordInput[], maxBytes: number): Buffer[] {
  if (records.length === 0) return [];
  const batch = encodeRecordBatch({ records });
  if (batch.length <= maxBytes || records.length === 1) return [batch];
  const half = Math.ceil(records.length / 2);
  return [...batchesWithin(records.slice(0, half), maxBytes), ...batchesWithin(records.slice(half), maxBytes)];
}
