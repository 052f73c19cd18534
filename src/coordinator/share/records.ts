/**
 * The `__share_group_state` records, as Kafka 4.4's share coordinator writes them: key = int16
 * record type (0 ShareSnapshot, 1 ShareUpdate) + the key struct at version 0; value = int16 value
 * version 0 + the flexible value struct (DeliveryCompleteCount as tagged field 0, left out at its
 * default -1). A share-partition is deleted with a ShareSnapshot tombstone.
 */
import { ShareSnapshotKey, ShareSnapshotValue } from '@sluice/protocol/messages/coordinator/share-snapshot.js';
import { ShareUpdateKey, ShareUpdateValue } from '@sluice/protocol/messages/coordinator/share-update.js';
import { Reader } from '@sluice/protocol/primitives/reader.js';
import { readVersioned, writeVersioned } from '@sluice/protocol/primitives/versioned-schema.js';
import type { CoordinatorRecord } from '../runtime/coordinator-log.js';
import { typePrefixedKey } from '../group/records.js';
import type { SharePartitionKey, ShareStateBatch } from './share-state-persister.js';

const SHARE_SNAPSHOT_TYPE = 0;
const SHARE_UPDATE_TYPE = 1;
const VALUE_VERSION = 0;

/** The whole state of a share-partition, as a ShareSnapshot holds it. */
export interface ShareSnapshot {
  readonly snapshotEpoch: number;
  readonly stateEpoch: number;
  readonly leaderEpoch: number;
  readonly startOffset: bigint;
  /** -1: unknown (KIP-1226). */
  readonly deliveryCompleteCount: number;
  readonly createTimestamp: bigint;
  readonly writeTimestamp: bigint;
  readonly stateBatches: readonly ShareStateBatch[];
}

/** A change on top of the last snapshot: the batches written, and -1 for what it leaves as is. */
export interface ShareUpdate {
  readonly snapshotEpoch: number;
  readonly leaderEpoch: number;
  readonly startOffset: bigint;
  readonly deliveryCompleteCount: number;
  readonly stateBatches: readonly ShareStateBatch[];
}

function keyBody(key: SharePartitionKey): { groupId: string; topicId: string; partition: number } {
  return { groupId: key.groupId, topicId: key.topicId, partition: key.partition };
}

export function shareSnapshotRecord(key: SharePartitionKey, snapshot: ShareSnapshot): CoordinatorRecord {
  return {
    key: typePrefixedKey(ShareSnapshotKey, SHARE_SNAPSHOT_TYPE, keyBody(key)),
    value: writeVersioned(ShareSnapshotValue, VALUE_VERSION, { ...snapshot, stateBatches: [...snapshot.stateBatches] }),
  };
}

export function shareUpdateRecord(key: SharePartitionKey, update: ShareUpdate): CoordinatorRecord {
  return {
    key: typePrefixedKey(ShareUpdateKey, SHARE_UPDATE_TYPE, keyBody(key)),
    value: writeVersioned(ShareUpdateValue, VALUE_VERSION, { ...update, stateBatches: [...update.stateBatches] }),
  };
}

export function shareStateTombstone(key: SharePartitionKey): CoordinatorRecord {
  return { key: typePrefixedKey(ShareSnapshotKey, SHARE_SNAPSHOT_TYPE, keyBody(key)), value: null };
}

export type DecodedShareRecord =
  | { readonly type: 'snapshot'; readonly key: SharePartitionKey; readonly value: ShareSnapshot | null }
  | { readonly type: 'update'; readonly key: SharePartitionKey; readonly value: ShareUpdate | null }
  /** A record type this coordinator does not know: Kafka skips it. */
  | { readonly type: 'other'; readonly recordType: number };

function batchesOf(
  batches: ReadonlyArray<{ firstOffset: bigint; lastOffset: bigint; deliveryState: number; deliveryCount: number }>,
): ShareStateBatch[] {
  return batches.map((b) => ({
    firstOffset: b.firstOffset,
    lastOffset: b.lastOffset,
    deliveryState: b.deliveryState,
    deliveryCount: b.deliveryCount,
  }));
}

/** Throws on bytes that do not parse: a corrupt `__share_group_state` record must stop loading. */
export function decodeShareRecord(key: Buffer, value: Buffer | null): DecodedShareRecord {
  const recordType = new Reader(key).int16();
  switch (recordType) {
    case SHARE_SNAPSHOT_TYPE: {
      const k = ShareSnapshotKey.read(new Reader(key, 2), 0);
      if (value === null) return { type: 'snapshot', key: keyBody(k), value: null };
      const v = readVersioned(ShareSnapshotValue, value).data;
      return {
        type: 'snapshot',
        key: keyBody(k),
        value: {
          snapshotEpoch: v.snapshotEpoch,
          stateEpoch: v.stateEpoch,
          leaderEpoch: v.leaderEpoch,
          startOffset: v.startOffset,
          deliveryCompleteCount: v.deliveryCompleteCount,
          createTimestamp: v.createTimestamp,
          writeTimestamp: v.writeTimestamp,
          stateBatches: batchesOf(v.stateBatches),
        },
      };
    }
    case SHARE_UPDATE_TYPE: {
      const k = ShareUpdateKey.read(new Reader(key, 2), 0);
      if (value === null) return { type: 'update', key: keyBody(k), value: null };
      const v = readVersioned(ShareUpdateValue, value).data;
      return {
        type: 'update',
        key: keyBody(k),
        value: {
          snapshotEpoch: v.snapshotEpoch,
          leaderEpoch: v.leaderEpoch,
          startOffset: v.startOffset,
          deliveryCompleteCount: v.deliveryCompleteCount,
          stateBatches: batchesOf(v.stateBatches),
        },
      };
    }
    default:
      return { type: 'other', recordType };
  }
}
