/**
 * Byte layout of a magic-2 record batch header (Kafka's DefaultRecordBatch). Every reader and
 * writer of batch headers takes its offsets from here, so the layout is stated once.
 *
 *   0 baseOffset int64 | 8 batchLength int32 | 12 partitionLeaderEpoch int32 | 16 magic int8
 *  17 crc uint32 | 21 attributes int16 | 23 lastOffsetDelta int32 | 27 baseTimestamp int64
 *  35 maxTimestamp int64 | 43 producerId int64 | 51 producerEpoch int16 | 53 baseSequence int32
 *  57 recordsCount int32 | 61 records…
 *
 * `batchLength` counts the bytes after itself, so a batch occupies `LOG_OVERHEAD + batchLength`.
 * The CRC32C covers `attributes` to the end of the batch.
 */
export const BASE_OFFSET_OFFSET = 0;
export const BATCH_LENGTH_OFFSET = 8;
export const PARTITION_LEADER_EPOCH_OFFSET = 12;
export const MAGIC_OFFSET = 16;
export const CRC_OFFSET = 17;
export const ATTRIBUTES_OFFSET = 21;
export const LAST_OFFSET_DELTA_OFFSET = 23;
export const BASE_TIMESTAMP_OFFSET = 27;
export const MAX_TIMESTAMP_OFFSET = 35;
export const PRODUCER_ID_OFFSET = 43;
export const PRODUCER_EPOCH_OFFSET = 51;
export const BASE_SEQUENCE_OFFSET = 53;
export const RECORDS_COUNT_OFFSET = 57;
export const RECORDS_OFFSET = 61;

/** baseOffset + batchLength: the bytes that precede what `batchLength` counts. */
export const LOG_OVERHEAD = 12;
/** Size of a magic-2 batch with no records. */
export const RECORD_BATCH_OVERHEAD = RECORDS_OFFSET;
/** Bytes needed to read the magic byte, which decides how the rest is laid out. */
export const HEADER_SIZE_UP_TO_MAGIC = MAGIC_OFFSET + 1;

export const MAGIC_V2 = 2;

/** Kafka's sentinels for "not set" in the producer fields and timestamps. */
export const NO_PRODUCER_ID = -1n;
export const NO_PRODUCER_EPOCH = -1;
export const NO_SEQUENCE = -1;
export const NO_PARTITION_LEADER_EPOCH = -1;
export const NO_TIMESTAMP = -1n;
