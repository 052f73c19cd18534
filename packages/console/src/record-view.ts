/**
 * A consumed record as the page shows it: every byte field decoded as UTF-8 text, invalid
 * sequences replaced rather than refused, so any payload can be looked at. The page puts these
 * strings into text nodes only; nothing here makes them safe for HTML, and nothing needs to.
 */
import type { ConsumedRecord } from '@sluice/client/index.js';
import type { RecordView } from './api-types.js';

const utf8 = new TextDecoder('utf-8', { fatal: false });

function text(bytes: Uint8Array | null): string | null {
  return bytes === null ? null : utf8.decode(bytes);
}

export function recordView(record: ConsumedRecord): RecordView {
  return {
    partition: record.partition,
    offset: record.offset.toString(),
    timestamp: record.timestamp.toString(),
    key: text(record.key),
    value: text(record.value),
    headers: record.headers.map((h) => ({ key: h.key, value: text(h.value) })),
  };
}
