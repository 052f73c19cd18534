import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { resetTarget } from '../src/offset-reset.js';

/** A partition whose log holds offsets [10, 50), with offset 30 committed. */
const P = { logStart: 10n, logEnd: 50n, committed: 30n };

describe('offset reset targets', () => {
  test('earliest and latest are the log start and end', () => {
    assert.equal(resetTarget({ to: 'earliest' }, P), 10n);
    assert.equal(resetTarget({ to: 'latest' }, P), 50n);
  });

  test('an absolute offset is clamped to [log start, log end], as Kafka does', () => {
    assert.equal(resetTarget({ to: 'offset', offset: 42n }, P), 42n);
    assert.equal(resetTarget({ to: 'offset', offset: 3n }, P), 10n);
    assert.equal(resetTarget({ to: 'offset', offset: 99n }, P), 50n);
  });

  test('a shift moves the committed offset, clamped; without a committed offset there is nothing to shift', () => {
    assert.equal(resetTarget({ to: 'shift', by: -5n }, P), 25n);
    assert.equal(resetTarget({ to: 'shift', by: -25n }, P), 10n);
    assert.equal(resetTarget({ to: 'shift', by: 100n }, P), 50n);
    assert.equal(resetTarget({ to: 'shift', by: 1n }, { logStart: 0n, logEnd: 5n }), null);
  });

  test('a time is the first offset at or after it, or the log end when no record is that recent', () => {
    assert.equal(resetTarget({ to: 'datetime', timestamp: 1n }, { ...P, atTimestamp: 17n }), 17n);
    assert.equal(resetTarget({ to: 'datetime', timestamp: 1n }, P), 50n);
  });
});
