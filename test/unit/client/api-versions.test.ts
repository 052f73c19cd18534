import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiVersionTable, CLIENT_API_RANGES } from '../../../src/client/api-versions.js';
import { KafkaError } from '../../../src/common/kafka-error.js';
import { ErrorCode } from '../../../src/protocol/errors.js';

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
});
