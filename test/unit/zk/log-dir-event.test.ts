import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeLogDirEvent, encodeLogDirEvent } from '../../../src/zk/kafka-zk-data.js';
import { KafkaZkDataError } from '../../../src/zk/kafka-zk-errors.js';

const PATH = '/log_dir_event_notification/log_dir_event_0000000000';

test('a log dir event is the JSON Kafka 3.9 writes, and names its broker', () => {
  assert.deepEqual(JSON.parse(encodeLogDirEvent(3).toString()), { version: 1, broker: 3, event: 1 });
  assert.equal(decodeLogDirEvent(PATH, Buffer.from('{"version":1,"broker":7,"event":1}')), 7);
  assert.equal(decodeLogDirEvent(PATH, encodeLogDirEvent(12)), 12);
});

test('a malformed log dir event is a typed error naming its znode', () => {
  for (const data of [null, Buffer.from('{"version":1}'), Buffer.from('not json')]) {
    assert.throws(
      () => decodeLogDirEvent(PATH, data),
      (err: unknown) => err instanceof KafkaZkDataError && err.message.includes(PATH),
    );
  }
});
