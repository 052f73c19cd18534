/**
 * Where a `__share_group_state` partition stops being needed, as Kafka's
 * ShareCoordinatorOffsetsManager computes it: a share-partition's state is its latest ShareSnapshot
 * plus the ShareUpdates after it, so every record below the oldest of the live share-partitions'
 * latest snapshots is redundant and may be deleted (DeleteRecords). A tombstone counts once, where
 * it is, and then its share-partition is no longer held back by anything.
 *
 * Fed with the offsets of durable records only (replayed, or appended and committed), so the
 * offset it answers never covers a record a failover could still take back. Main thread.
 */
import type { CoordinatorRecord } from '../runtime/coordinator-log.js';
import { decodeShareRecord } from './records.js';
import { shareCoordinatorKey } from './share-coordinator.js';

export class RedundantOffsets {
  /** The offset of each live share-partition's latest ShareSnapshot. */
  private readonly latestSnapshots = new Map<string, bigint>();
  private lastRedundant: bigint | null = null;

  /** A record of the partition at `offset` (ShareUpdates hold nothing back: only snapshots count). */
  record(key: Buffer, value: Buffer | null, offset: bigint): void {
    const decoded = decodeShareRecord(key, value);
    if (decoded.type !== 'snapshot') return;
    const k = shareCoordinatorKey(decoded.key);
    this.latestSnapshots.set(k, offset);
    let oldest = offset;
    for (const o of this.latestSnapshots.values()) if (o < oldest) oldest = o;
    this.lastRedundant = oldest;
    if (decoded.value === null) this.latestSnapshots.delete(k);
  }

  /** The records of one appended batch, from its base offset on. */
  appended(records: readonly CoordinatorRecord[], baseOffset: bigint): void {
    records.forEach((r, i) => this.record(r.key, r.value, baseOffset + BigInt(i)));
  }

  /** Every record below this offset is redundant; null while nothing is (Kafka's empty Optional). */
  redundantBelow(): bigint | null {
    return this.lastRedundant === null || this.lastRedundant <= 0n ? null : this.lastRedundant;
  }
}
