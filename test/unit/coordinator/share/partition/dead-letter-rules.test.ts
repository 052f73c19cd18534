// Kafka 4.4's rules for share-group dead-letter topics (ShareGroupDLQStateManager.validateDlqTopic):
// each rule with Kafka's message, in Kafka's order; the headers; the partition a record goes to.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  deadLetterHeaders,
  deadLetterPartition,
  deadLetterSource,
  deadLetterTopicProblem,
  type DeadLetterSettings,
  type DeadLetterTopicState,
} from '../../../../../src/coordinator/share/partition/dead-letter-rules.js';

const settings = (topic: string, over: Partial<DeadLetterSettings> = {}): DeadLetterSettings => ({
  topic,
  copyRecord: false,
  prefix: 'dlq.',
  autoCreate: false,
  ...over,
});
const ENABLED: DeadLetterTopicState = { enabled: true };
const DISABLED: DeadLetterTopicState = { enabled: false };

test('a dead-letter topic is checked against the rules in Kafka order, each with its message', () => {
  // Kafka's format ends with a period after the prefix, so the default prefix shows as `dlq..`.
  const cases: Array<[DeadLetterSettings, DeadLetterTopicState | null, string | null]> = [
    [settings(''), null, 'Configured DLQ topic name in share group: g is empty.'],
    [settings('__x'), null, 'Configured DLQ topic name in share group: g cannot start with __, topic: __x.'],
    [settings('dlq.g'), DISABLED, 'DLQ is not enabled on configured DLQ topic for share group: g, topic: dlq.g.'],
    [settings('dlq.g'), null, 'DLQ topic does not exist and auto create is disabled on cluster for share group: g, topic: dlq.g.'],
    [
      settings('orders.dead'),
      ENABLED,
      'Configured DLQ topic name does not comply with the DLQ topic prefix in share group: g, topic: orders.dead, prefix: dlq..',
    ],
    // A missing topic is reported before a wrong prefix, as Kafka checks them.
    [
      settings('orders.dead'),
      null,
      'DLQ topic does not exist and auto create is disabled on cluster for share group: g, topic: orders.dead.',
    ],
    [
      settings('orders.dead', { autoCreate: true }),
      null,
      'Configured DLQ topic name does not comply with the DLQ topic prefix in share group: g, topic: orders.dead, prefix: dlq..',
    ],
    [settings('orders.dead', { prefix: '' }), ENABLED, null],
    [settings('dlq.g'), ENABLED, null],
    [settings('dlq.g', { autoCreate: true }), null, null],
  ];
  for (const [s, topic, expected] of cases)
    assert.equal(deadLetterTopicProblem('g', s, topic), expected, `${s.topic} ${JSON.stringify(topic)}`);
});

test('six context headers, UTF-8 text, in Kafka order; read back, they name the source offset of the same group and partition only', () => {
  const headers = deadLetterHeaders({
    topic: 'orders',
    partition: 3,
    offset: 41n,
    groupId: 'g',
    deliveryCount: 5,
    cause: 'delivery-count-exceeded',
  });
  assert.deepEqual(
    headers.map((h) => [h.key, Buffer.from(h.value!).toString('utf8')]),
    [
      ['__dlq.errors.topic', 'orders'],
      ['__dlq.errors.partition', '3'],
      ['__dlq.errors.offset', '41'],
      ['__dlq.errors.group', 'g'],
      ['__dlq.errors.delivery.count', '5'],
      ['__dlq.errors.message', 'Offset delivery count exceeded the threshold.'],
    ],
  );
  const read = headers.map((h) => ({ key: h.key, value: Buffer.from(h.value!) }));
  assert.equal(deadLetterSource(read, 'g', 'orders', 3), 41n);
  assert.equal(deadLetterSource(read, 'other', 'orders', 3), null);
  assert.equal(deadLetterSource(read, 'g', 'orders', 2), null);
  assert.equal(deadLetterSource([], 'g', 'orders', 3), null);
});

test("a source partition's records go to dead-letter partition (source mod count)", () => {
  assert.deepEqual(
    [0, 1, 2, 3, 4].map((p) => deadLetterPartition(p, 3)),
    [0, 1, 2, 0, 1],
  );
});
