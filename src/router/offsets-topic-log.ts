/**
 * `__consumer_offsets` as the group coordinators use it: created on first use (compacted, as
 * Kafka creates it), appended one batch per coordinator operation, and replayed record by
 * record when a coordinator loads. Runs on the main thread; the bytes come from the partition's
 * owner through the ring (READ_BYTES), a bounded chunk at a time.
 */
import type { TopicAdmin } from '../cluster/topic-admin.js';
import { CONSUMER_OFFSETS_TOPIC as OFFSETS_TOPIC } from '../cluster/topic-names.js';
import type { Logger } from '../common/logger.js';
import type { CoordinatorRecord } from '../coordinator/group/records.js';
import { decompress } from '../native/index.js';
import { ErrorCode } from '../protocol/errors.js';
import { encodeRecordBatch, isControl, lastOffsetOf, readRecords, validateBatches } from '../protocol/records/index.js';
import type { CoordinatorLog } from './group-coordinator-runtime.js';
import { EARLIEST_TIMESTAMP, NO_EPOCH_CHECK } from '../worker/partition-protocol.js';
import type { PartitionService } from './partition-service.js';

/** Kafka's `offsets.topic.segment.bytes` default. */
const OFFSETS_SEGMENT_BYTES = '104857600';
/** Replay reads this much at a time; it must stay well below the worker rings' capacity. */
const REPLAY_CHUNK_BYTES = 1024 * 1024;
/** Group records are committed once every in-sync replica has them, as Kafka's coordinators append. */
const ACKS_ALL = -1;

export class OffsetsTopicLog implements CoordinatorLog {
  private creating: Promise<void> | null = null;

  constructor(
    private readonly admin: TopicAdmin,
    private readonly partitions: PartitionService,
    private readonly numPartitions: number,
    private readonly logger: Logger,
  ) {}

  exists(): boolean {
    return this.admin.metadata.topic(OFFSETS_TOPIC) !== undefined;
  }

  ensureTopic(): Promise<void> {
    if (this.exists()) return Promise.resolve();
    this.creating ??= this.create().finally(() => (this.creating = null));
    return this.creating;
  }

  private async create(): Promise<void> {
    const created = await this.admin.createTopic(
      {
        name: OFFSETS_TOPIC,
        numPartitions: this.numPartitions,
        replicationFactor: -1,
        assignments: [],
        configs: [
          { name: 'cleanup.policy', value: 'compact' },
          { name: 'segment.bytes', value: OFFSETS_SEGMENT_BYTES },
          { name: 'compression.type', value: 'producer' },
        ],
      },
      false,
    );
    if (created.errorCode !== ErrorCode.NONE && created.errorCode !== ErrorCode.TOPIC_ALREADY_EXISTS) {
      throw new Error(`creating ${OFFSETS_TOPIC} failed: ${created.errorMessage ?? created.errorCode}`);
    }
    this.logger.info('created the group coordinators\' topic', { topic: OFFSETS_TOPIC, partitions: this.numPartitions });
  }

  async append(partition: number, records: readonly CoordinatorRecord[]): Promise<number> {
    const timestamp = BigInt(Date.now());
    const batch = encodeRecordBatch({ records: records.map((r) => ({ key: r.key, value: r.value, headers: [], timestamp })) });
    const [reply] = await this.partitions.appendMany([{ topic: OFFSETS_TOPIC, partition, requiredAcks: ACKS_ALL, records: batch }]);
    return reply!.errorCode;
  }

  async replay(partition: number, onRecord: (key: Buffer, value: Buffer | null) => void): Promise<number> {
    const start = await this.partitions.listOffset({ topic: OFFSETS_TOPIC, partition }, NO_EPOCH_CHECK, EARLIEST_TIMESTAMP);
    if (start.errorCode !== ErrorCode.NONE) return start.errorCode;
    let offset = start.offset;
    for (;;) {
      const chunk = await this.partitions.readBytes(OFFSETS_TOPIC, partition, offset, REPLAY_CHUNK_BYTES);
      if (chunk.errorCode !== ErrorCode.NONE) return chunk.errorCode;
      if (chunk.bytes.length === 0) return ErrorCode.NONE;
      const scan = validateBatches(chunk.bytes);
      if (!scan.ok) return scan.error.code;
      if (scan.batches.length === 0) return ErrorCode.CORRUPT_MESSAGE;
      for (const header of scan.batches) {
        if (!isControl(header.attributes)) {
          for (const record of readRecords(chunk.bytes, header, { decompress })) {
            if (record.offset >= offset && record.key !== null) onRecord(record.key, record.value);
          }
        }
        offset = lastOffsetOf(header) + 1n;
      }
      if (offset >= chunk.highWatermark) return ErrorCode.NONE;
    }
  }
}
