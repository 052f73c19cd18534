/**
 * Encode + decode of the partition ops' hot ring bodies: what every Produce and Fetch costs each
 * worker besides the ring itself. One message carries 16 partitions, as one request's share of a
 * worker. Each body is written into a scratch buffer as the ring would take it (in-place header,
 * then payloads) and decoded from there; records are 1 KiB, copied as the ring copies them.
 * Writes bench/results/ipc-partition-bodies.json. Run:
 *   npx tsc -b && node dist/bench/micro/ipc/partition-bodies.bench.js
 */
import { leaderEpochOf, NO_EPOCH, offsetOf } from '@sluice/protocol/common/offsets.js';
import { Bench } from 'tinybench';
import type { MessageBody } from '../../../src/ipc/ring-channel.js';
import {
  PartitionOps,
  type AppendReply,
  type AppendRequest,
  type ReadCommand,
  type ReadReply,
} from '../../../src/partitions/partition-protocol.js';
import type { WorkerOp } from '../../../src/worker-pool/worker-op.js';
import { consume, writeReport, type Row } from '../native/report.js';

const PARTITIONS = 16;
const scratch = new Uint8Array(1 << 20);
const view = new DataView(scratch.buffer);

/** The body as the ring holds it: the header written in place, the payloads copied after it. */
function inRing(body: MessageBody | Uint8Array | void): Uint8Array {
  if (body === undefined) return scratch.subarray(0, 0);
  if (body instanceof Uint8Array) {
    scratch.set(body);
    return scratch.subarray(0, body.byteLength);
  }
  let at = 0;
  if (body.header !== undefined) {
    body.header.write(view, 0);
    at = body.header.byteLength;
  }
  for (const p of body.payloads ?? []) {
    scratch.set(p, at);
    at += p.byteLength;
  }
  return scratch.subarray(0, at);
}

const range = Array.from({ length: PARTITIONS }, (_, i) => i);
const records = Buffer.alloc(1024, 7);

const appends: AppendRequest[] = range.map((partition) => ({
  topic: 'orders-events',
  partition,
  requiredAcks: -1,
  records,
  acksWait: { id: 1000 + partition, timeoutMs: 30_000 },
}));

const appendReplies: AppendReply[] = range.map((partition) => ({
  errorCode: 0,
  errorMessage: null,
  recordErrors: [],
  baseOffset: offsetOf(1_000_000 + partition),
  logAppendTimeMs: -1n,
  logStartOffset: offsetOf(0),
  highWatermark: offsetOf(1_000_000),
  highWatermarkMoved: partition % 2 === 0,
  leaderEpoch: leaderEpochOf(3),
  requiredOffset: offsetOf(1_000_010),
  needsVerification: false,
  wakeReads: [],
  completedAcks: [],
}));

const reads: ReadCommand[] = range.map((partition) => ({
  topic: 'orders-events',
  partition,
  currentLeaderEpoch: leaderEpochOf(3),
  fetchOffset: offsetOf(1_000_000),
  maxBytes: 1 << 20,
  readCommitted: false,
  minOneMessage: true,
  replicaId: -1,
  lastFetchedEpoch: NO_EPOCH,
}));

const readReplies: ReadReply[] = range.map((partition) => ({
  errorCode: 0,
  highWatermark: offsetOf(1_000_100),
  lastStableOffset: offsetOf(1_000_100),
  logStartOffset: offsetOf(0),
  slice: { leaseId: 77 + partition, fd: 42, position: 123_456, length: 65_536 },
  abortedTransactions: null,
  highWatermarkMoved: false,
  divergingEpoch: null,
  isrProposal: null,
  completedAcks: [],
}));

function requestTask<Req>(op: WorkerOp<Req, unknown>, value: Req): () => void {
  return () => consume(bodyCount(op.request.decode(inRing(op.request.encode(value)))));
}

function replyTask<Rep>(op: WorkerOp<unknown, Rep>, value: Rep): () => void {
  return () => consume(bodyCount(op.reply.decode(inRing(op.reply.encode(value)))));
}

function bodyCount(decoded: unknown): number {
  return Array.isArray(decoded) ? decoded.length : 1;
}

const bench = new Bench({ time: 1500, warmupTime: 500 });
bench
  .add('append request', requestTask(PartitionOps.append, appends))
  .add('append reply', replyTask(PartitionOps.append, appendReplies))
  .add('read request', requestTask(PartitionOps.read, reads))
  .add('read reply', replyTask(PartitionOps.read, readReplies));
await bench.run();

const rows: Row[] = bench.tasks.map((task) => {
  const hz = task.result?.state === 'completed' ? task.result.throughput.mean : 0;
  return { body: task.name, partitions: PARTITIONS, 'messages/s': Math.round(hz), 'µs/message': 1e6 / hz };
});
writeReport('ipc-partition-bodies', 'Partition op bodies: encode into ring memory + decode, 16 partitions per message', rows, [
  'Shared 2-core machine: compare runs taken back to back, not across days.',
]);
