/** Error codes are found at every depth of a decoded response; zeros and byte fields are skipped. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { forEachErrorCode } from '../../../src/common/metrics/response-errors.js';

function codes(response: unknown): number[] {
  const found: number[] = [];
  forEachErrorCode(response, (c) => found.push(c));
  return found.sort((a, b) => a - b);
}

test('top-level, per-topic and per-partition error codes are all counted', () => {
  const response = {
    errorCode: 0,
    throttleTimeMs: 0,
    responses: [
      {
        name: 'a',
        partitionResponses: [
          { index: 0, errorCode: 0 },
          { index: 1, errorCode: 3 },
        ],
      },
      {
        name: 'b',
        partitionResponses: [
          { index: 0, errorCode: 6, recordErrors: [] },
          { index: 1, errorCode: 3 },
        ],
      },
    ],
  };
  assert.deepEqual(codes(response), [3, 3, 6]);
  assert.deepEqual(codes({ errorCode: 35, apiKeys: [] }), [35]);
  assert.deepEqual(codes({ errorCode: -1 }), [-1]);
});

test('zero, non-numeric codes, byte fields and non-objects count nothing', () => {
  const records = Buffer.alloc(64);
  assert.deepEqual(codes({ errorCode: 0, records, nested: { errorCode: 'x' }, big: 5n }), []);
  assert.deepEqual(codes(null), []);
  assert.deepEqual(codes(7), []);
  assert.deepEqual(codes([{ errorCode: 1 }, [{ errorCode: 2 }]]), [1, 2]);
});
