/**
 * A coordinator whose partition cannot be replayed answers its operations with the coordinator
 * error Kafka gives (CoordinatorOperationExceptionHelper), which clients retry, not the
 * partition's own code, which ends a share consumer's or a group member's session.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { Logger } from '../../../../src/common/logger.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import type { CoordinatorLog } from '../../../../src/coordinator/runtime/coordinator-log.js';
import { CoordinatorRuntime, coordinatorErrorOf, type CoordinatorShard } from '../../../../src/coordinator/runtime/coordinator-runtime.js';

class EmptyShard implements CoordinatorShard<never> {
  replay(): void {}
  loaded(): void {}
  tick(): { records: []; released: [] } {
    return { records: [], released: [] };
  }
  nextDeadline(): null {
    return null;
  }
  unload(): never[] {
    return [];
  }
}

/** A log whose replay fails with `errorCode` the first `failures` times, then succeeds. */
function failingLog(errorCode: number, failures: number): CoordinatorLog {
  let left = failures;
  return {
    exists: () => true,
    ensureTopic: async () => undefined,
    append: async () => ErrorCode.NONE,
    appendMarker: async () => ErrorCode.NONE,
    replay: async () => (left-- > 0 ? errorCode : ErrorCode.NONE),
  };
}

function runtimeOver(log: CoordinatorLog): CoordinatorRuntime<EmptyShard, never> {
  return new CoordinatorRuntime<EmptyShard, never>({
    topic: '__consumer_offsets',
    log,
    newShard: () => new EmptyShard(),
    deliver: () => undefined,
    logger: new Logger('test'),
  });
}

const answer = () => ({ records: [], response: 'ok', released: [] });

test('a replay that fails with a partition error answers the coordinator error clients retry on; the next operation loads again', async () => {
  for (const [partitionError, coordinatorError] of [
    [ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.COORDINATOR_NOT_AVAILABLE],
    [ErrorCode.NOT_ENOUGH_REPLICAS, ErrorCode.COORDINATOR_NOT_AVAILABLE],
    [ErrorCode.REQUEST_TIMED_OUT, ErrorCode.COORDINATOR_NOT_AVAILABLE],
    [ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.NOT_COORDINATOR],
    [ErrorCode.KAFKA_STORAGE_ERROR, ErrorCode.NOT_COORDINATOR],
    [ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS],
  ] as const) {
    const runtime = runtimeOver(failingLog(partitionError, 1));
    await assert.rejects(
      runtime.run(0, answer),
      (err: unknown) => err instanceof KafkaError && err.code === coordinatorError,
      `partition error ${partitionError}`,
    );
    assert.equal(await runtime.run(0, answer), 'ok');
  }
});

test("codes that are no coordinator's to pass on become UNKNOWN_SERVER_ERROR; others pass as they are", () => {
  for (const code of [ErrorCode.MESSAGE_TOO_LARGE, ErrorCode.RECORD_LIST_TOO_LARGE, ErrorCode.INVALID_FETCH_SIZE])
    assert.equal(coordinatorErrorOf(code), ErrorCode.UNKNOWN_SERVER_ERROR);
  for (const code of [ErrorCode.CORRUPT_MESSAGE, ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.NOT_COORDINATOR])
    assert.equal(coordinatorErrorOf(code), code);
});
