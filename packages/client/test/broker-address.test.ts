import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseBootstrapServers, parseBrokerAddress } from '../src/broker-address.js';
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';

describe('broker addresses', () => {
  test('host:port, IPv6 in brackets, and comma-separated lists', () => {
    assert.deepEqual(parseBrokerAddress('localhost:9092'), { host: 'localhost', port: 9092 });
    assert.deepEqual(parseBrokerAddress('[::1]:19092'), { host: '::1', port: 19092 });
    assert.deepEqual(parseBootstrapServers('a:1, b:2,'), [
      { host: 'a', port: 1 },
      { host: 'b', port: 2 },
    ]);
  });

  test('anything else is a KafkaError naming the input', () => {
    for (const bad of ['localhost', 'host:0', 'host:70000', ':9092', '::1:9092', 'h:p']) {
      assert.throws(
        () => parseBrokerAddress(bad),
        (err: unknown) => err instanceof KafkaError && err.message.includes(bad),
        bad,
      );
    }
    assert.throws(() => parseBootstrapServers(' , '), KafkaError);
  });
});
