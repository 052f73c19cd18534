/**
 * The `__consumer_offsets` records of classic groups and committed offsets, as Kafka writes them:
 * key = int16 record type (its "key version") + key struct, value = int16 value version + value
 * struct, a null value being a tombstone. Record types: 0 and 1 offset commit (0 is the legacy
 * layout, identical bytes), 2 group metadata; higher types belong to the new group protocols and are
 * skipped here. Kafka writes OffsetCommitValue v3 (v1 when the commit carries an explicit expiry,
 * OffsetCommit v2-v4 with a retention time) and GroupMetadataValue v3. The consumer group records
 * (types 3 and up) are in `consumer/consumer-records.ts`, built on the helpers exported here.
 */
import {
  GroupMetadataKey,
  GroupMetadataValue,
  type GroupMetadataValueData,
  type GroupMetadataValueDataInput,
} from '@sluice/protocol/messages/coordinator/group-metadata.js';
import {
  OffsetCommitKey,
  OffsetCommitValue,
  type OffsetCommitValueData,
  type OffsetCommitValueDataInput,
} from '@sluice/protocol/messages/coordinator/offset-commit.js';
import type { MessageCodec } from '@sluice/protocol/primitives/codec-support.js';
import { Reader } from '@sluice/protocol/primitives/reader.js';
import { Writer } from '@sluice/protocol/primitives/writer.js';
import { readVersioned, writeVersioned } from '@sluice/protocol/primitives/versioned-schema.js';
import type { CoordinatorRecord } from '../runtime/coordinator-log.js';

/** One record for the caller to append to the group's `__consumer_offsets` partition. */
export type { CoordinatorRecord };

const LEGACY_OFFSET_COMMIT_TYPE = 0;
const OFFSET_COMMIT_TYPE = 1;
const GROUP_METADATA_TYPE = 2;
const OFFSET_COMMIT_VALUE_VERSION = 3;
const OFFSET_COMMIT_VALUE_VERSION_WITH_EXPIRY = 1;
const GROUP_METADATA_VALUE_VERSION = 3;

/** A key's prefix is its record type; the key struct itself only has a version 0. */
export function typePrefixedKey<I>(codec: MessageCodec<unknown, I>, recordType: number, body: I): Buffer {
  const w = new Writer();
  w.int16(recordType);
  codec.write(w, body, 0);
  return w.finish();
}

export interface OffsetKey {
  group: string;
  topic: string;
  partition: number;
}

export function offsetCommitRecord(key: OffsetKey, value: OffsetCommitValueDataInput): CoordinatorRecord {
  const hasExpiry = value.expireTimestamp !== undefined && value.expireTimestamp !== -1n;
  const version = hasExpiry ? OFFSET_COMMIT_VALUE_VERSION_WITH_EXPIRY : OFFSET_COMMIT_VALUE_VERSION;
  return {
    key: typePrefixedKey(OffsetCommitKey, OFFSET_COMMIT_TYPE, key),
    value: writeVersioned(OffsetCommitValue, version, value),
  };
}

export function offsetCommitTombstone(key: OffsetKey): CoordinatorRecord {
  return { key: typePrefixedKey(OffsetCommitKey, OFFSET_COMMIT_TYPE, key), value: null };
}

export function groupMetadataRecord(group: string, value: GroupMetadataValueDataInput): CoordinatorRecord {
  return {
    key: typePrefixedKey(GroupMetadataKey, GROUP_METADATA_TYPE, { group }),
    value: writeVersioned(GroupMetadataValue, GROUP_METADATA_VALUE_VERSION, value),
  };
}

export function groupMetadataTombstone(group: string): CoordinatorRecord {
  return { key: typePrefixedKey(GroupMetadataKey, GROUP_METADATA_TYPE, { group }), value: null };
}

export type DecodedRecord =
  | { type: 'offset-commit'; key: OffsetKey; value: OffsetCommitValueData | null }
  | { type: 'group-metadata'; group: string; value: GroupMetadataValueData | null }
  /** A record of another group protocol (consumer, share, streams groups): not ours. */
  | { type: 'other'; recordType: number };

/** A stored value: int16 value version, then the struct at that version. */
export function readValue<T>(codec: MessageCodec<T, unknown>, bytes: Buffer): T {
  return readVersioned(codec, bytes).data;
}

/** Throws on bytes that do not parse: a corrupt `__consumer_offsets` record must stop loading. */
export function decodeRecord(key: Buffer, value: Buffer | null): DecodedRecord {
  const recordType = new Reader(key).int16();
  switch (recordType) {
    case LEGACY_OFFSET_COMMIT_TYPE:
    case OFFSET_COMMIT_TYPE: {
      const k = OffsetCommitKey.read(new Reader(key, 2), 0);
      return {
        type: 'offset-commit',
        key: { group: k.group, topic: k.topic, partition: k.partition },
        value: value === null ? null : readValue(OffsetCommitValue, value),
      };
    }
    case GROUP_METADATA_TYPE:
      return {
        type: 'group-metadata',
        group: GroupMetadataKey.read(new Reader(key, 2), 0).group,
        value: value === null ? null : readValue(GroupMetadataValue, value),
      };
    default:
      return { type: 'other', recordType };
  }
}
