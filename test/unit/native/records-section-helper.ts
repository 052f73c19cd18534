/**
 * Test helper: reads the keys and values out of a decompressed magic-2 records section, so
 * that codec tests check the real content a producer sent, not just a length.
 */
export interface KeyValue {
  readonly key: string | null;
  readonly value: string | null;
}

/** Offset of the records section in a magic-2 batch, and where its count and attributes sit. */
export const BATCH_RECORDS_OFFSET = 61;
export const BATCH_ATTRIBUTES_OFFSET = 21;
export const BATCH_COUNT_OFFSET = 57;

export function readKeyValues(section: Buffer, count: number): KeyValue[] {
  let pos = 0;
  const varint = (): number => {
    let raw = 0;
    let shift = 0;
    for (;;) {
      const byte = section[pos++];
      if (byte === undefined) throw new Error('truncated varint');
      raw |= (byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) break;
      shift += 7;
    }
    return (raw >>> 1) ^ -(raw & 1);
  };
  const text = (): string | null => {
    const length = varint();
    if (length < 0) return null;
    const s = section.toString('utf8', pos, pos + length);
    pos += length;
    return s;
  };
  const out: KeyValue[] = [];
  for (let i = 0; i < count; i++) {
    const length = varint();
    const end = pos + length;
    pos += 1; // attributes
    varint(); // timestamp delta
    varint(); // offset delta
    const key = text();
    const value = text();
    pos = end; // headers are not used by the fixtures
    out.push({ key, value });
  }
  if (pos !== section.length) throw new Error(`records section has ${section.length - pos} trailing bytes`);
  return out;
}
