import { test } from 'node:test';
import { leaderEpochOf, NO_EPOCH, offsetOf } from '@sluice/protocol/common/offsets.js';
import assert from 'node:assert/strict';
import { randomFillSync } from 'node:crypto';
import { MessageChannel } from 'node:worker_threads';
import type { MessageBody } from '../../../src/ipc/ring-channel.js';
import { FrameBufferPool } from '@sluice/protocol/frame-buffer-pool.js';
import { SharedFrameSender, UnknownSharedFrameError, receiveSharedFramesOn } from '../../../src/worker-pool/shared-frames.js';
import {
  PartitionOps,
  failedAppend,
  failedPosition,
  type AppendReply,
  type AppendRequest,
  type ReadCommand,
  type ReadReply,
  type TxnMarkerEntry,
} from '../../../src/partitions/partition-protocol.js';

/** The bytes a body puts in the ring: its header (none here) and its payloads, in order. */
function wire(body: MessageBody | Uint8Array | void): Uint8Array {
  if (body === undefined) return new Uint8Array(0);
  if (body instanceof Uint8Array) return body;
  return Buffer.concat([...(body.payloads ?? [])]);
}

const parkedRead = (partition: number, fetchOffset: bigint): ReadCommand => ({
  topic: 'orders',
  partition,
  currentLeaderEpoch: leaderEpochOf(4),
  fetchOffset: offsetOf(fetchOffset),
  maxBytes: 1 << 20,
  readCommitted: true,
  minOneMessage: true,
  replicaId: -1,
  lastFetchedEpoch: leaderEpochOf(-1),
});

test("an append body carries many partitions, each header followed by its records, in order, with who wrote them, whether they are verified, their acks=all waits and the parked fetches' reads", () => {
  const entries = [
    {
      topic: 'orders',
      partition: 3,
      requiredAcks: -1,
      origin: 'client' as const,
      txnVerified: false,
      records: Buffer.from('first batch'),
      wakeReads: [parkedRead(3, 2n ** 40n), parkedRead(3, 0n)],
      acksWait: { id: 0xffffffff, timeoutMs: 30_000 },
    },
    { topic: 'ünïcode-topic', partition: 0, requiredAcks: 1, origin: 'client' as const, txnVerified: true, records: Buffer.alloc(0) },
    {
      topic: '__consumer_offsets',
      partition: 11,
      requiredAcks: -1,
      origin: 'coordinator' as const,
      txnVerified: false,
      records: Buffer.alloc(70_000, 0xab),
      acksWait: { id: 1, timeoutMs: 0 },
    },
  ];
  const body = PartitionOps.append.request.encode(entries);
  assert.equal(body.payloads?.[1], entries[0]!.records, 'the records go into the ring as they are, not re-encoded');
  const decoded = PartitionOps.append.request.decode(wire(body));
  assert.deepEqual(
    decoded.map((d) => ({ ...d, records: Buffer.from(d.records) })),
    entries.map((e) => ({ wakeReads: undefined, acksWait: undefined, ...e })),
  );
});

test('an acks=all wait costs an append header its id and timeout only; none costs nothing', () => {
  const entry = { topic: 't', partition: 0, requiredAcks: -1, origin: 'coordinator' as const, records: Buffer.alloc(0) };
  const size = (e: AppendRequest): number => wire(PartitionOps.append.request.encode([e])).byteLength;
  assert.equal(size({ ...entry, acksWait: { id: 7, timeoutMs: 100 } }) - size(entry), 8);
});

test("a client's records in a pooled frame go as a reference the worker views in place; coordinator records and other memory are copied", () => {
  const { port1, port2 } = new MessageChannel();
  // This thread plays the worker: it receives the memories the sender posts.
  receiveSharedFramesOn(port2);
  const sender = new SharedFrameSender(port1);
  try {
    const frame = randomFillSync(new FrameBufferPool().take(200_000));
    const entries = [
      {
        topic: 'orders',
        partition: 3,
        requiredAcks: 1,
        origin: 'client' as const,
        txnVerified: false,
        records: frame.subarray(1000, 151_000),
      },
      {
        topic: '__consumer_offsets',
        partition: 1,
        requiredAcks: -1,
        origin: 'coordinator' as const,
        txnVerified: false,
        records: frame.subarray(151_000, 151_100),
      },
      {
        topic: 'orders',
        partition: 4,
        requiredAcks: -1,
        origin: 'client' as const,
        txnVerified: true,
        records: Buffer.from('not in a frame'),
      },
    ];
    const body = PartitionOps.append.request.encode(entries);
    assert.equal(body.sharedFrames?.length, 1);
    assert.equal(body.sharedFrames[0]!.memory, frame.buffer);
    assert.equal(body.payloads?.includes(entries[0]!.records), false);
    assert.ok(wire(body).byteLength < 300, 'only the coordinator and outside records are in the body');
    sender.share(body.sharedFrames);
    const decoded = PartitionOps.append.request.decode(wire(body));
    assert.deepEqual(
      decoded.map((d) => ({ ...d, records: Buffer.from(d.records) })),
      entries.map((e) => ({ ...e, records: Buffer.from(e.records), wakeReads: undefined, acksWait: undefined })),
    );
    // A change to the frame shows in the worker's view only where the records were not copied.
    const coordinatorByte = decoded[1]!.records[0]!;
    frame[1000] = ~frame[1000]! & 0xff;
    frame[151_000] = ~frame[151_000]! & 0xff;
    assert.equal(decoded[0]!.records[0], frame[1000], 'the worker views the frame itself');
    assert.equal(decoded[1]!.records[0], coordinatorByte, "a coordinator's records are copied");
    for (const hold of body.sharedFrames) hold.release();
  } finally {
    sender.close();
  }
});

test('a reference to a frame the worker was never sent, or past its end, is refused', () => {
  const { port1, port2 } = new MessageChannel();
  receiveSharedFramesOn(port2);
  const sender = new SharedFrameSender(port1);
  try {
    const frame = new FrameBufferPool().take(100_000);
    const entry = { topic: 't', partition: 0, requiredAcks: 1, records: frame.subarray(0, 10) };
    const unsent = PartitionOps.append.request.encode([entry]);
    assert.throws(() => PartitionOps.append.request.decode(wire(unsent)), UnknownSharedFrameError);
    const sent = PartitionOps.append.request.encode([entry]);
    sender.share(sent.sharedFrames!);
    const bytes = Buffer.from(wire(sent));
    // The length, last in the entry: one byte past the memory's end.
    bytes.writeInt32BE(frame.buffer.byteLength + 1, bytes.byteLength - 4);
    assert.throws(() => PartitionOps.append.request.decode(bytes), RangeError);
  } finally {
    sender.close();
  }
});

test('append replies keep their order, record errors, int64 offsets, whether the high watermark moved, what acks=all waits for, the waits completed and the reads done for parked fetches', () => {
  const replies: AppendReply[] = [
    {
      errorCode: 0,
      errorMessage: null,
      recordErrors: [],
      baseOffset: offsetOf(2n ** 40n),
      logAppendTimeMs: -1n,
      logStartOffset: offsetOf(0n),
      highWatermark: offsetOf(2n ** 40n + 5n),
      highWatermarkMoved: true,
      leaderEpoch: leaderEpochOf(7),
      requiredOffset: offsetOf(2n ** 40n + 9n),
      needsVerification: false,
      wakeReads: [],
      completedAcks: [
        { id: 0xffffffff, errorCode: 0 },
        { id: 3, errorCode: 19 },
      ],
    },
    {
      errorCode: 87,
      errorMessage: 'bad record',
      recordErrors: [
        { batchIndex: 2, message: 'key required' },
        { batchIndex: 4, message: null },
      ],
      baseOffset: offsetOf(-1n),
      logAppendTimeMs: -1n,
      logStartOffset: offsetOf(-1n),
      highWatermark: offsetOf(-1n),
      highWatermarkMoved: false,
      leaderEpoch: leaderEpochOf(-1),
      requiredOffset: offsetOf(-1n),
      needsVerification: true,
      wakeReads: [],
      completedAcks: [],
    },
    {
      ...failedAppend(0, null),
      baseOffset: offsetOf(10n),
      highWatermark: offsetOf(12n),
      highWatermarkMoved: true,
      wakeReads: [
        {
          errorCode: 0,
          highWatermark: offsetOf(12n),
          lastStableOffset: offsetOf(11n),
          logStartOffset: offsetOf(0n),
          slice: { leaseId: 9, fd: 40, position: 4096, length: 200 },
          abortedTransactions: [],
          highWatermarkMoved: false,
          divergingEpoch: null,
          isrProposal: null,
          completedAcks: [],
        },
        {
          errorCode: 74,
          highWatermark: offsetOf(-1n),
          lastStableOffset: offsetOf(-1n),
          logStartOffset: offsetOf(-1n),
          slice: null,
          abortedTransactions: null,
          highWatermarkMoved: false,
          divergingEpoch: null,
          isrProposal: null,
          completedAcks: [],
        },
      ],
    },
  ];
  const op = PartitionOps.append;
  assert.deepEqual(op.reply.decode(wire(op.reply.encode(replies))), replies);
  assert.deepEqual(op.reply.decode(wire(op.reply.encode([]))), []);
  const bytes = (completedAcks: AppendReply['completedAcks']): number =>
    wire(op.reply.encode([{ ...failedAppend(0, null), completedAcks }])).byteLength;
  assert.equal(bytes([{ id: 1, errorCode: 0 }]) - bytes([]), 6, 'an id and an error code each; none costs the count byte only');
});

test("a read body carries many partitions with their leader epochs and the fetcher's replica id and last epoch; the replies come back in the same order", () => {
  const commands: ReadCommand[] = [
    {
      topic: 'a',
      partition: 0,
      currentLeaderEpoch: leaderEpochOf(-1),
      fetchOffset: offsetOf(0n),
      maxBytes: 1 << 20,
      readCommitted: false,
      minOneMessage: true,
      replicaId: -1,
      lastFetchedEpoch: leaderEpochOf(-1),
    },
    {
      topic: 'b',
      partition: 4095,
      currentLeaderEpoch: leaderEpochOf(7),
      fetchOffset: offsetOf(123_456_789_012n),
      maxBytes: 0,
      readCommitted: true,
      minOneMessage: false,
      replicaId: 3,
      lastFetchedEpoch: leaderEpochOf(6),
    },
  ];
  const op = PartitionOps.read;
  assert.deepEqual(op.request.decode(wire(op.request.encode(commands))), commands);
  const replies: ReadReply[] = [
    {
      errorCode: 0,
      highWatermark: offsetOf(10n),
      lastStableOffset: offsetOf(10n),
      logStartOffset: offsetOf(0n),
      slice: { leaseId: 0xffffffff, fd: 42, position: 2 ** 40, length: 1024 },
      abortedTransactions: [
        { producerId: 2n ** 40n, firstOffset: offsetOf(3n) },
        { producerId: 7n, firstOffset: offsetOf(9n) },
      ],
      highWatermarkMoved: true,
      divergingEpoch: null,
      isrProposal: { leaderEpoch: 4, partitionEpoch: 2 ** 31 - 1, newIsr: [1, 2, 3] },
      completedAcks: [
        { id: 12, errorCode: 0 },
        { id: 0xfffffffe, errorCode: 6 },
      ],
    },
    {
      errorCode: 1,
      highWatermark: offsetOf(-1n),
      lastStableOffset: offsetOf(-1n),
      logStartOffset: offsetOf(-1n),
      slice: null,
      abortedTransactions: null,
      highWatermarkMoved: false,
      divergingEpoch: null,
      isrProposal: null,
      completedAcks: [],
    },
    {
      errorCode: 0,
      highWatermark: offsetOf(8n),
      lastStableOffset: offsetOf(8n),
      logStartOffset: offsetOf(0n),
      slice: null,
      abortedTransactions: [],
      highWatermarkMoved: false,
      divergingEpoch: { epoch: leaderEpochOf(4), endOffset: offsetOf(2n ** 35n) },
      isrProposal: null,
      completedAcks: [{ id: 5, errorCode: 0 }],
    },
  ];
  assert.deepEqual(op.reply.decode(wire(op.reply.encode(replies))), replies);
  const plain = replies[1]!;
  assert.equal(
    wire(op.reply.encode([plain])).byteLength,
    1 + 1 + 2 + 8 + 8 + 8 + 1,
    'no proposal and no completions cost nothing beyond the body count, the flag bits and the empty completions',
  );
});

test('a writeTxnMarkers body carries each entry whole, in order; replies are append replies', () => {
  const entries: TxnMarkerEntry[] = [
    {
      topic: 'a',
      partition: 0,
      producerId: 2n ** 50n,
      producerEpoch: 32767,
      coordinatorEpoch: 9,
      commit: true,
      transactionVersion: 2,
      acksWait: { id: 77, timeoutMs: 5000 },
    },
    // A key left out decodes as undefined.
    {
      topic: 'b',
      partition: 7,
      producerId: 0n,
      producerEpoch: 0,
      coordinatorEpoch: -1,
      commit: false,
      transactionVersion: 0,
      acksWait: undefined,
    },
  ];
  const op = PartitionOps.writeTxnMarkers;
  assert.deepEqual(op.request.decode(wire(op.request.encode(entries))), entries);
  const replies = [
    failedAppend(52, 'fenced'),
    { ...failedAppend(0, null), baseOffset: offsetOf(5), requiredOffset: offsetOf(6), leaderEpoch: leaderEpochOf(3) },
  ];
  assert.deepEqual(op.reply.decode(wire(op.reply.encode(replies))), replies);
});

test('a truncated batched body is refused, not half-read', () => {
  const op = PartitionOps.read;
  const body = wire(
    op.request.encode([
      {
        topic: 'a',
        partition: 0,
        currentLeaderEpoch: leaderEpochOf(-1),
        fetchOffset: offsetOf(5n),
        maxBytes: 10,
        readCommitted: false,
        minOneMessage: true,
        replicaId: -1,
        lastFetchedEpoch: leaderEpochOf(-1),
      },
    ]),
  );
  assert.throws(() => op.request.decode(body.subarray(0, body.byteLength - 1)));
});

test('the bytes of a readBytes reply are copied out of the ring, which reuses its memory', () => {
  const op = PartitionOps.readBytes;
  const ring = wire(
    op.reply.encode({
      errorCode: 0,
      highWatermark: offsetOf(3n),
      logEndOffset: offsetOf(5n),
      leaderEpoch: leaderEpochOf(2),
      logStartOffset: offsetOf(0n),
      bytes: Buffer.from('records'),
    }),
  );
  const reply = op.reply.decode(ring);
  ring.fill(0);
  assert.equal(reply.bytes.toString(), 'records');
  assert.deepEqual([reply.highWatermark, reply.logEndOffset, reply.leaderEpoch], [3, 5, 2]);
});

test("a follower's append body carries the leader's watermarks, then its records copied once into the ring", () => {
  const entries = [
    {
      topic: 't',
      partition: 2,
      currentLeaderEpoch: leaderEpochOf(5),
      leaderHighWatermark: offsetOf(2n ** 33n),
      leaderLogStartOffset: offsetOf(7),
      records: Buffer.from('fetched batches'),
    },
    {
      topic: 'u',
      partition: 0,
      currentLeaderEpoch: NO_EPOCH,
      leaderHighWatermark: offsetOf(0),
      leaderLogStartOffset: offsetOf(0),
      records: Buffer.alloc(0),
    },
  ];
  const op = PartitionOps.appendAsFollower;
  const body = op.request.encode(entries);
  assert.equal(body.payloads?.[1], entries[0]!.records);
  assert.deepEqual(
    op.request.decode(wire(body)).map((d) => ({ ...d, records: Buffer.from(d.records) })),
    entries,
  );
  const positions = [
    {
      errorCode: 0,
      errorMessage: null,
      logEndOffset: offsetOf(2n ** 34n),
      highWatermark: offsetOf(2n ** 33n),
      logStartOffset: offsetOf(7),
      lastFetchedEpoch: leaderEpochOf(5),
    },
    failedPosition(6, 'this broker leads t-2'),
  ];
  assert.deepEqual(op.reply.decode(wire(op.reply.encode(positions))), positions);
});

test('open, delete and isrAnswers replies carry the acks=all waits they completed', () => {
  const acks = { completedAcks: [{ id: 4, errorCode: 6 }] };
  assert.deepEqual(PartitionOps.open.reply.decode(wire(PartitionOps.open.reply.encode(acks))), acks);
  assert.deepEqual(PartitionOps.delete.reply.decode(wire(PartitionOps.delete.reply.encode(acks))), acks);
  const answers = [{ errorCode: 0, highWatermarkMoved: true, highWatermark: offsetOf(9), completedAcks: [{ id: 4, errorCode: 0 }] }];
  assert.deepEqual(PartitionOps.isrAnswers.reply.decode(wire(PartitionOps.isrAnswers.reply.encode(answers))), answers);
});

test('every op has its own number in the handler range and its own name', () => {
  const ops = Object.entries(PartitionOps);
  assert.equal(new Set(ops.map(([, op]) => op.id)).size, ops.length);
  for (const [name, op] of ops) {
    assert.equal(op.name, name);
    assert.ok(op.id >= 0 && op.id <= 0xfeff, `${name}: ${op.id}`);
  }
});
