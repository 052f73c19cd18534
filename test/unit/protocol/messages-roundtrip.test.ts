import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import * as messages from '@sluice/protocol/messages/index.js';
import { Reader } from '@sluice/protocol/primitives/reader.js';
import { Writer } from '@sluice/protocol/primitives/writer.js';
import type { MessageCodec } from '@sluice/protocol/primitives/codec-support.js';
import { assertCarries, isFlexible, structArbitrary, versionsOf } from '../../helpers/schema-arbitrary.js';

type AnyCodec = MessageCodec<Record<string, unknown>, Record<string, unknown>>;
const codecs = messages as unknown as Record<string, AnyCodec | undefined>;

function isCodec(value: unknown): value is AnyCodec {
  return typeof value === 'object' && value !== null && 'schema' in value && 'read' in value && 'write' in value;
}

function encode(codec: AnyCodec, value: Record<string, unknown>, version: number): Buffer {
  const w = new Writer(64);
  codec.write(w, value, version);
  return Buffer.from(w.finish());
}

/** Every generated codec: requests, responses, headers, data schemas and coordinator records. */
const generated = (Object.values(messages) as unknown[]).filter(isCodec).sort((a, b) => (a.name < b.name ? -1 : 1));

test('the generated code carries a codec for every kind of definition', () => {
  assert.ok(generated.length >= 200, `only ${generated.length} codecs generated`);
  for (const name of ['RequestHeader', 'ResponseHeader', 'ConsumerProtocolAssignment', 'OffsetCommitValue', 'TransactionLogValue']) {
    assert.ok(
      generated.some((c) => c.name === name),
      `${name} has no codec`,
    );
  }
});

test('every broker API has generated request and response codecs', () => {
  const apiKeys = messages.API_MESSAGES.map((a) => a.apiKey);
  assert.ok(apiKeys.length >= 71, `only ${apiKeys.length} APIs generated`);
  for (const key of [0, 1, 2, 3, 8, 9, 10, 11, 12, 13, 14, 18, 19, 22, 32, 60, 68, 75]) {
    assert.ok(apiKeys.includes(key), `API ${key} is missing`);
  }
});

describe('generated codecs round-trip every version (property)', () => {
  for (const codec of generated) {
    const valid = codec.validVersions;
    test(`${codec.name} v${valid.lo}-${valid.hi}`, () => {
      for (const version of versionsOf(valid.lo, valid.hi)) {
        fc.assert(
          fc.property(structArbitrary(codec.schema, version, isFlexible(codec, version)), (input) => {
            const bytes = encode(codec, input, version);
            const r = new Reader(bytes);
            const decoded = codec.read(r, version);
            assert.equal(r.remaining(), 0, 'decoder left bytes unread');
            assertCarries(codec.schema, version, input, decoded, `${codec.name}v${version}`);
            assert.deepEqual(encode(codec, decoded, version), bytes, 're-encoding the decoded value changed the bytes');
          }),
          { numRuns: 15 },
        );
      }
    });
  }
});

describe('codec semantics', () => {
  test('an empty input encodes every field as its default and decodes back to defaults', () => {
    const bytes = encode(codecs['MetadataRequest']!, {}, 12);
    const decoded = messages.MetadataRequest.read(new Reader(bytes), 12);
    assert.deepEqual(decoded.topics, [], 'Topics defaults to an empty array, as in Kafka');
    assert.equal(decoded.allowAutoTopicCreation, true);
  });

  test('a non-default field that the version cannot carry is refused unless ignorable', () => {
    const w = new Writer();
    assert.throws(() => messages.JoinGroupRequest.write(w, { groupId: 'g', groupInstanceId: 'static-1' }, 4), /groupInstanceId/);
    const ignorable = new Writer();
    messages.MetadataRequest.write(ignorable, { includeTopicAuthorizedOperations: true }, 8);
    assert.doesNotThrow(() => messages.MetadataRequest.read(new Reader(ignorable.finish()), 8));
  });

  test('null in a non-nullable field is refused on encode', () => {
    assert.throws(
      () => messages.HeartbeatRequest.write(new Writer(), { groupInstanceId: 'x', groupId: null as unknown as string }, 4),
      /non-nullable|null/,
    );
  });

  test('a version outside validVersions is refused in both directions', () => {
    assert.throws(() => messages.ProduceRequest.write(new Writer(), {}, 2), /version 2/);
    assert.throws(() => messages.ProduceRequest.read(new Reader(Buffer.alloc(64)), 99), /version 99/);
  });

  test('known tagged fields are written only when they differ from the default', () => {
    const base = encode(codecs['FetchResponse']!, { responses: [{ topic: '', partitions: [{ partitionIndex: 1 }] }] }, 12);
    const withLeader = encode(
      codecs['FetchResponse']!,
      { responses: [{ topic: '', partitions: [{ partitionIndex: 1, currentLeader: { leaderId: 3, leaderEpoch: 7 } }] }] },
      12,
    );
    assert.ok(withLeader.length > base.length);
    const decoded = messages.FetchResponse.read(new Reader(withLeader), 12);
    assert.deepEqual(decoded.responses[0]!.partitions[0]!.currentLeader, { leaderId: 3, leaderEpoch: 7 });
    const plain = messages.FetchResponse.read(new Reader(base), 12);
    assert.deepEqual(plain.responses[0]!.partitions[0]!.currentLeader, { leaderId: -1, leaderEpoch: -1 });
  });

  test('byte layout of a flexible request matches the protocol guide', () => {
    const bytes = encode(codecs['FindCoordinatorRequest']!, { keyType: 0, coordinatorKeys: ['g1'] }, 4);
    // key_type int8, coordinator_keys compact array (len+1) of compact strings (len+1), empty tag section.
    assert.deepEqual([...bytes], [0x00, 0x02, 0x03, 0x67, 0x31, 0x00]);
    const v0 = encode(codecs['FindCoordinatorRequest']!, { key: 'g1' }, 0);
    assert.deepEqual([...v0], [0x00, 0x02, 0x67, 0x31]);
  });
});
