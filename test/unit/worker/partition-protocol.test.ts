import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  decodeAppendReplies,
  decodeAppends,
  decodeReadReplies,
  decodeReads,
  encodeAppendHeader,
  encodeAppendReplies,
  encodeReadReplies,
  encodeReads,
  type AppendReply,
  type ReadCommand,
  type ReadReply,
} from '../../../src/worker/partition-protocol.js';

const concat = (parts: readonly Uint8Array[]): Uint8Array => Buffer.concat(parts);

test('an APPEND body carries many partitions, each header followed by its records, in order', () => {
  const entries = [
    { topic: 'orders', partition: 3, leaderEpoch: 0, records: Buffer.from('first batch') },
    { topic: 'ünïcode-topic', partition: 0, leaderEpoch: 7, records: Buffer.alloc(0) },
    { topic: 'orders', partition: 11, leaderEpoch: 0, records: Buffer.alloc(70_000, 0xab) },
  ];
  const body = concat(entries.flatMap((e) => [encodeAppendHeader(e, e.records.byteLength), e.records]));
  const decoded = decodeAppends(body);
  assert.deepEqual(
    decoded.map((d) => ({ ...d.command, records: Buffer.from(d.records) })),
    entries.map((e) => ({ topic: e.topic, partition: e.partition, leaderEpoch: e.leaderEpoch, records: e.records })),
  );
});

test('append replies keep their order, record errors and int64 offsets', () => {
  const replies: AppendReply[] = [
    { errorCode: 0, errorMessage: null, recordErrors: [], baseOffset: 2n ** 40n, logAppendTimeMs: -1n, logStartOffset: 0n, highWatermark: 2n ** 40n + 5n },
    { errorCode: 87, errorMessage: 'bad record', recordErrors: [{ batchIndex: 2, message: 'key required' }, { batchIndex: 4, message: null }], baseOffset: -1n, logAppendTimeMs: -1n, logStartOffset: -1n, highWatermark: -1n },
  ];
  assert.deepEqual(decodeAppendReplies(encodeAppendReplies(replies)), replies);
  assert.deepEqual(decodeAppendReplies(encodeAppendReplies([])), []);
});

test('a READ body carries many partitions and the replies come back in the same order, with or without a lease', () => {
  const commands: ReadCommand[] = [
    { topic: 'a', partition: 0, fetchOffset: 0n, maxBytes: 1 << 20, readCommitted: false, minOneMessage: true },
    { topic: 'b', partition: 4095, fetchOffset: 123_456_789_012n, maxBytes: 0, readCommitted: true, minOneMessage: false },
  ];
  assert.deepEqual(decodeReads(encodeReads(commands)), commands);
  const replies: ReadReply[] = [
    { errorCode: 0, highWatermark: 10n, lastStableOffset: 10n, logStartOffset: 0n, slice: { leaseId: 0xffffffff, fd: 42, position: 2 ** 40, length: 1024 } },
    { errorCode: 1, highWatermark: -1n, lastStableOffset: -1n, logStartOffset: -1n, slice: null },
  ];
  assert.deepEqual(decodeReadReplies(encodeReadReplies(replies)), replies);
});

test('a truncated batched body is refused, not half-read', () => {
  const body = encodeReads([{ topic: 'a', partition: 0, fetchOffset: 5n, maxBytes: 10, readCommitted: false, minOneMessage: true }]);
  assert.throws(() => decodeReads(body.subarray(0, body.byteLength - 1)));
});
