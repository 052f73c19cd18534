/**
 * Kafka's `Cleaner.buildOffsetMap`: reads the dirty segments, oldest first, and records the
 * offset of every keyed record, so the map ends holding the latest offset of each key. Control
 * batches carry no data keys and are skipped, as is the data of aborted transactions. The map is filled a whole segment at a time and
 * stops at the first segment end once it holds `maxEntries` keys, so the cleaned range (and the
 * next checkpoint) always ends on a segment boundary.
 *
 * Runs on a cleaner thread; reads leased descriptors only.
 */
import { decompress } from '../../native/index.js';
import { isControl, readRecords } from '@sluice/protocol/records/index.js';
import type { AbortedData } from './aborted-data.js';
import type { CleanSegmentInput } from './clean-task.js';
import { KeyOffsetMap } from './offset-map.js';
import { segmentBatches } from './segment-batches.js';

export interface OffsetMapBuild {
  readonly map: KeyOffsetMap;
  /** One past the last offset the map covers: the end of the cleaned range. */
  readonly endOffset: number;
  readonly bytesRead: number;
}

export function buildOffsetMap(
  segments: readonly CleanSegmentInput[],
  firstDirtyOffset: number,
  firstUncleanableOffset: number,
  maxEntries: number,
  aborted: AbortedData,
): OffsetMapBuild {
  const map = new KeyOffsetMap();
  let endOffset = firstDirtyOffset;
  let bytesRead = 0;
  for (const segment of segments) {
    if (segment.nextOffset <= firstDirtyOffset) continue;
    if (segment.baseOffset >= firstUncleanableOffset || map.size >= maxEntries) break;
    for (const { header, bytes } of segmentBatches(segment.fd, segment.size)) {
      if (isControl(header.attributes) || aborted.holds(header)) continue;
      for (const record of readRecords(bytes, header, { decompress })) {
        const offset = Number(record.offset);
        if (offset >= firstDirtyOffset && record.key !== null) map.put(record.key, offset);
      }
    }
    bytesRead += segment.size;
    endOffset = segment.nextOffset;
  }
  map.coverUpTo(endOffset - 1);
  return { map, endOffset, bytesRead };
}
