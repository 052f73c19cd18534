/**
 * The records of one partition's Fetch response section. A fetch may start inside a batch (the
 * broker returns whole batches), so records before the fetch offset are skipped; control
 * batches (transaction markers) carry no user records; a partial batch at the end is left for
 * the next fetch, as Kafka's consumer does.
 */
import { BatchScan, isControl, lastOffsetOf, readRecords, type RecordHeader } from '@sluice/protocol/records/index.js';
import { decompressRecords } from './compression-codecs.js';

export interface ConsumedRecord {
  readonly partition: number;
  readonly offset: bigint;
  readonly timestamp: bigint;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: readonly RecordHeader[];
}

export interface PartitionRecords {
  readonly records: ConsumedRecord[];
  /** Where the next fetch of this partition starts. */
  readonly nextOffset: bigint;
}

export function decodePartitionRecords(partition: number, section: Buffer | null, fetchOffset: bigint): PartitionRecords {
  const records: ConsumedRecord[] = [];
  let nextOffset = fetchOffset;
  if (section === null) return { records, nextOffset };
  for (const header of new BatchScan(section)) {
    const batchNext = lastOffsetOf(header) + 1n;
    if (batchNext <= nextOffset) continue;
    if (!isControl(header.attributes)) {
      for (const r of readRecords(section, header, { decompress: decompressRecords })) {
        if (r.offset >= fetchOffset)
          records.push({ partition, offset: r.offset, timestamp: r.timestamp, key: r.key, value: r.value, headers: r.headers });
      }
    }
    nextOffset = batchNext;
  }
  return { records, nextOffset };
}
