/**
 * Kafka's producer state snapshot, `<20-digit offset>.snapshot` in the partition directory: the
 * producer table as it stood just before `offset` (Kafka's `ProducerStateManager.writeSnapshot`,
 * schema version 1). Big-endian:
 *
 *   0   int16   version = 1
 *   2   uint32  CRC32C of every byte from offset 6 to the end
 *   6   int32   number of entries, then per entry (46 bytes):
 *       int64 producer id, int16 epoch, int32 last sequence, int64 last offset (-1: no batch),
 *       int32 offset delta (last offset - first offset of that batch), int64 timestamp,
 *       int32 coordinator epoch, int64 first offset of the open transaction (-1: none)
 *
 * Only the newest batch of each producer is stored (as Kafka does), so after a restart from a
 * snapshot a retry of that last batch is still recognised as a duplicate.
 *
 * Crash behaviour: written to `<name>.tmp`, fsynced, renamed, directory fsynced; a crash leaves
 * the old state or the new file, and a leftover `.tmp` is removed when the partition opens. A
 * file that fails to parse or whose CRC does not match is a `CorruptSnapshotError`; the loader
 * deletes it and falls back to an older snapshot or to a scan of the log.
 */
import { closeSync, fsyncSync, openSync, readdirSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { crc32c } from '../../native/index.js';
import { syncDirectory } from '../checkpoint/checkpoint-file.js';
import { baseOffsetOfFile, segmentFileStem, TMP_SUFFIX } from '../file-names.js';
import { offsetOf, type Offset } from '@sluice/protocol/common/offsets.js';
import { batchMetadata, ProducerStateEntry, type ProducerState } from './producer-state-entry.js';

export const SNAPSHOT_SUFFIX = '.snapshot';
export const PRODUCER_SNAPSHOT_VERSION = 1;

const VERSION_OFFSET = 0;
const CRC_OFFSET = 2;
const ENTRIES_OFFSET = 6;
const HEADER_BYTES = ENTRIES_OFFSET + 4;
const ENTRY_BYTES = 8 + 2 + 4 + 8 + 4 + 8 + 4 + 8;

export class CorruptSnapshotError extends Error {
  constructor(path: string, reason: string) {
    super(`corrupt producer snapshot ${path}: ${reason}`);
    this.name = 'CorruptSnapshotError';
  }
}

export function snapshotPath(dir: string, offset: Offset): string {
  return join(dir, segmentFileStem(offset) + SNAPSHOT_SUFFIX);
}

/** Offsets of the `.snapshot` files in `dir`, ascending. */
export function listSnapshotOffsets(dir: string): Offset[] {
  const offsets: Offset[] = [];
  for (const name of readdirSync(dir)) {
    const offset = baseOffsetOfFile(name, SNAPSHOT_SUFFIX);
    if (offset !== null) offsets.push(offset);
  }
  return offsets.sort((a, b) => a - b);
}

export function encodeSnapshot(entries: Iterable<ProducerState>): Buffer {
  const list = [...entries];
  const buf = Buffer.alloc(HEADER_BYTES + list.length * ENTRY_BYTES);
  buf.writeInt16BE(PRODUCER_SNAPSHOT_VERSION, VERSION_OFFSET);
  buf.writeInt32BE(list.length, ENTRIES_OFFSET);
  let at = HEADER_BYTES;
  for (const entry of list) {
    const last = entry.batches[entry.batches.length - 1];
    at = buf.writeBigInt64BE(entry.producerId, at);
    at = buf.writeInt16BE(entry.producerEpoch, at);
    at = buf.writeInt32BE(entry.lastSeq, at);
    at = buf.writeBigInt64BE(BigInt(last?.lastOffset ?? -1), at);
    at = buf.writeInt32BE(last?.offsetDelta ?? 0, at);
    at = buf.writeBigInt64BE(BigInt(entry.lastTimestamp), at);
    at = buf.writeInt32BE(entry.coordinatorEpoch, at);
    at = buf.writeBigInt64BE(BigInt(entry.currentTxnFirstOffset), at);
  }
  buf.writeUInt32BE(crc32c(buf.subarray(ENTRIES_OFFSET)), CRC_OFFSET);
  return buf;
}

/** Parses a snapshot; `path` names it in errors. Throws `CorruptSnapshotError`. */
export function decodeSnapshot(buf: Buffer, path: string): ProducerStateEntry[] {
  if (buf.length < HEADER_BYTES) throw new CorruptSnapshotError(path, `${buf.length} bytes is shorter than the header`);
  const version = buf.readInt16BE(VERSION_OFFSET);
  if (version !== PRODUCER_SNAPSHOT_VERSION) throw new CorruptSnapshotError(path, `unknown version ${version}`);
  const stored = buf.readUInt32BE(CRC_OFFSET);
  const computed = crc32c(buf.subarray(ENTRIES_OFFSET));
  if (stored !== computed) throw new CorruptSnapshotError(path, `stored CRC ${stored}, computed ${computed}`);
  const count = buf.readInt32BE(ENTRIES_OFFSET);
  if (count < 0 || buf.length !== HEADER_BYTES + count * ENTRY_BYTES) {
    throw new CorruptSnapshotError(path, `${count} entries do not fill ${buf.length} bytes`);
  }
  const entries: ProducerStateEntry[] = [];
  for (let at = HEADER_BYTES; at < buf.length; at += ENTRY_BYTES) {
    const producerId = buf.readBigInt64BE(at);
    const epoch = buf.readInt16BE(at + 8);
    const lastSeq = buf.readInt32BE(at + 10);
    const lastOffset = buf.readBigInt64BE(at + 14);
    const offsetDelta = buf.readInt32BE(at + 22);
    const timestamp = Number(buf.readBigInt64BE(at + 26));
    const coordinatorEpoch = buf.readInt32BE(at + 34);
    const txnFirstOffset = Number(buf.readBigInt64BE(at + 38));
    if (lastOffset > BigInt(Number.MAX_SAFE_INTEGER)) throw new CorruptSnapshotError(path, `last offset ${lastOffset} is beyond 2^53`);
    const last = lastOffset >= 0n ? batchMetadata(lastSeq, offsetOf(lastOffset), offsetDelta, timestamp) : null;
    entries.push(new ProducerStateEntry(producerId, epoch, timestamp, last, coordinatorEpoch, txnFirstOffset));
  }
  return entries;
}

export function readSnapshot(dir: string, offset: Offset): ProducerStateEntry[] {
  const path = snapshotPath(dir, offset);
  return decodeSnapshot(readFileSync(path), path);
}

export function writeSnapshot(dir: string, offset: Offset, entries: Iterable<ProducerState>): void {
  const path = snapshotPath(dir, offset);
  const tmp = path + TMP_SUFFIX;
  const fd = openSync(tmp, 'w');
  try {
    writeSync(fd, encodeSnapshot(entries));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  syncDirectory(dir);
}
