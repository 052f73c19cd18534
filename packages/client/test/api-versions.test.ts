import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiVersionTable, CLIENT_API_RANGES } from '../src/api-versions.js';
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';

const client = new Map([
  [0, { min: 3, max: 13 }],
  [1, { min: 4, max: 18 }],
  [3, { min: 0, max: 13 }],
]);

describe('ApiVersionTable', () => {
  test('picks for each API the highest version both sides support', () => {
    const table = new ApiVersionTable(
      [
        { apiKey: 0, min: 0, max: 11 }, // broker older than the client
        { apiKey: 1, min: 4, max: 20 }, // broker newer than the client
        { apiKey: 3, min: 0, max: 13 },
      ],
      client,
    );
    assert.equal(table.version(0, 'Produce'), 11);
    assert.equal(table.version(1, 'Fetch'), 18);
    assert.equal(table.version(3, 'Metadata'), 13);
  });

  test('an API without a common version, or unknown to one side, is unsupported with UNSUPPORTED_VERSION', () => {
    const table = new ApiVersionTable(
      [
        { apiKey: 0, min: 0, max: 2 }, // disjoint from the client's 3-13
        { apiKey: 99, min: 0, max: 5 }, // unknown to the client
      ],
      client,
    );
    assert.equal(table.has(0), false);
    assert.equal(table.has(99), false);
    assert.equal(table.has(1), false, 'not advertised by the broker');
    assert.throws(
      () => table.version(0, 'Produce'),
      (err: unknown) => err instanceof KafkaError && err.code === ErrorCode.UNSUPPORTED_VERSION && /Produce/.test(err.message),
    );
  });

  test("the client's ranges come from the generated codecs", () => {
    assert.deepEqual(CLIENT_API_RANGES.get(18), { min: 0, max: 5 });
    assert.equal(CLIENT_API_RANGES.get(0)?.min, 3);
  });

  test('the client knows the ZooKeeper-era inter-broker APIs, ControlledShutdown from v1 (v0 needs request header v0)', () => {
    assert.deepEqual(CLIENT_API_RANGES.get(4), { min: 0, max: 7 }, 'LeaderAndIsr');
    assert.deepEqual(CLIENT_API_RANGES.get(5), { min: 0, max: 4 }, 'StopReplica');
    assert.deepEqual(CLIENT_API_RANGES.get(6), { min: 0, max: 8 }, 'UpdateMetadata');
    assert.deepEqual(CLIENT_API_RANGES.get(7), { min: 1, max: 3 }, 'ControlledShutdown');
  });

  test('against a Kafka 3.9 ZooKeeper broker it picks the versions a 3.9 controller sends', () => {
    const table = new ApiVersionTable([
      { apiKey: 4, min: 0, max: 7 },
      { apiKey: 5, min: 0, max: 4 },
      { apiKey: 6, min: 0, max: 8 },
      { apiKey: 7, min: 0, max: 3 },
    ]);
    assert.deepEqual(
      [
        table.version(4, 'LeaderAndIsr'),
        table.version(5, 'StopReplica'),
        table.version(6, 'UpdateMetadata'),
        table.version(7, 'ControlledShutdown'),
      ],
      [7, 4, 8, 3],
    );
  });
});
