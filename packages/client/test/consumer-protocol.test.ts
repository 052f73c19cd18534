import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeMemberAssignment } from '../src/consumer-protocol.js';
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { ConsumerProtocolAssignment, type ConsumerProtocolAssignmentDataInput } from '@sluice/protocol/messages/index.js';
import { Writer } from '@sluice/protocol/primitives/writer.js';

/** Member assignment bytes as a client's SyncGroup carries them: int16 version, then the schema at that version. */
function assignmentBytes(
  version: number,
  schemaVersion: number,
  data: ConsumerProtocolAssignmentDataInput,
  trailer = Buffer.alloc(0),
): Buffer {
  const w = new Writer();
  w.int16(version);
  ConsumerProtocolAssignment.write(w, data, schemaVersion);
  return Buffer.concat([w.finish(), trailer]);
}

const ASSIGNED = {
  assignedPartitions: [
    { topic: 'a', partitions: [0, 2] },
    { topic: 'b', partitions: [1] },
  ],
  userData: Buffer.from('u'),
};
const EXPECTED = [
  { topic: 'a', partitions: [0, 2] },
  { topic: 'b', partitions: [1] },
];

describe('consumer protocol member assignments', () => {
  test('the version prefix is read, then the partitions per topic (v0 and v3)', () => {
    assert.deepEqual(decodeMemberAssignment(assignmentBytes(0, 0, ASSIGNED)), EXPECTED);
    assert.deepEqual(decodeMemberAssignment(assignmentBytes(3, 3, ASSIGNED)), EXPECTED);
  });

  test('a version newer than the schema is read as the newest known, its extra bytes ignored', () => {
    assert.deepEqual(decodeMemberAssignment(assignmentBytes(7, 3, ASSIGNED, Buffer.from([1, 2, 3]))), EXPECTED);
  });

  test('no bytes is no assignment (a group that is not Stable)', () => {
    assert.deepEqual(decodeMemberAssignment(Buffer.alloc(0)), []);
  });

  test('bytes that are not the consumer protocol are CORRUPT_MESSAGE', () => {
    for (const bad of [Buffer.from([0xff, 0xff, 0, 0, 0, 0]), Buffer.from([0, 0, 0, 0, 0, 5, 0])]) {
      assert.throws(
        () => decodeMemberAssignment(bad),
        (err: unknown) => err instanceof KafkaError && err.code === ErrorCode.CORRUPT_MESSAGE,
      );
    }
  });
});
