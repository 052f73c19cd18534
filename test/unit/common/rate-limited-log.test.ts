import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Logger } from '../../../src/common/logger.js';
import { RateLimitedLog } from '../../../src/common/rate-limited-log.js';
import { waitFor, when } from '../../helpers/wait-for.js';

class RecordingLogger extends Logger {
  readonly lines: Array<{ message: string; context: Record<string, unknown> | undefined }> = [];
  override warn(message: string, context?: Record<string, unknown>): void {
    this.lines.push({ message, context });
  }
}

test('at most N warnings a second; the rest are counted and reported in one line when the second ends', () => {
  const log = new RecordingLogger('test');
  let now = 1_000_000;
  const limited = new RateLimitedLog(log, 3, () => now);
  for (let i = 0; i < 20_000; i++) limited.warn('bad input', { i });
  assert.equal(log.lines.length, 3);
  now += 1000;
  limited.warn('bad input', { i: 'next second' });
  assert.deepEqual(
    log.lines.slice(3).map((l) => [l.message, l.context]),
    [
      ['similar warnings suppressed', { count: 19_997 }],
      ['bad input', { i: 'next second' }],
    ],
  );
});

test('the count held back is reported by a timer when no further warning comes', async () => {
  const log = new RecordingLogger('test');
  const limited = new RateLimitedLog(log, 1);
  limited.warn('a');
  limited.warn('b');
  limited.warn('c');
  assert.equal(log.lines.length, 1);
  await waitFor('the timer to report the held-back count', 5000, () => when(log.lines.length > 1), 20);
  assert.deepEqual(log.lines[1], { message: 'similar warnings suppressed', context: { count: 2 } });
});
