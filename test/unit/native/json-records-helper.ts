/**
 * Test and benchmark payload: newline-separated JSON records of about 1 KiB, shaped like event
 * data (repeated field names, words from a small vocabulary, some random identifiers), so codecs
 * see realistic redundancy rather than zeros or noise.
 */
import { randomBytes } from 'node:crypto';

const WORDS = [
  'order',
  'created',
  'shipped',
  'payment',
  'customer',
  'warehouse',
  'berlin',
  'lisbon',
  'express',
  'standard',
  'refund',
  'pending',
  'item',
  'quantity',
  'discount',
  'coupon',
];

export function jsonRecords(count: number, recordBytes = 1024): Buffer {
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const record = {
      id: i,
      trace: randomBytes(12).toString('hex'),
      user: `user-${(i * 7919) % 10007}`,
      at: 1_700_000_000_000 + i * 37,
      text: '',
    };
    const words: string[] = [];
    let length = JSON.stringify(record).length;
    while (length < recordBytes) {
      const word = WORDS[randomBytes(1)[0]! % WORDS.length]!;
      words.push(word);
      length += word.length + 1;
    }
    record.text = words.join(' ');
    lines.push(JSON.stringify(record));
  }
  return Buffer.from(lines.join('\n'));
}
