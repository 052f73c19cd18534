// The settings a share partition reads for its group: when it has a dead-letter queue (KIP-1191).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sharePartitionConfigSource } from '../../../src/broker/share-partition-settings.js';
import { DEFAULT_SHARE_GROUP_CONFIG } from '../../../src/coordinator/group/share/share-group-config.js';
import type { GroupConfigOverrides } from '../../../src/metadata/config/group-configs.js';

test('a group has a dead-letter queue when it names a topic and share.version is 2, as Kafka decides', () => {
  const cases: Array<[GroupConfigOverrides, boolean, boolean]> = [
    [{}, true, false],
    [{ errorsDeadLetterQueueTopicName: '' }, true, false],
    [{ errorsDeadLetterQueueTopicName: '  ' }, true, false],
    [{ errorsDeadLetterQueueTopicName: 'dlq.g' }, true, true],
    [{ errorsDeadLetterQueueTopicName: 'dlq.g' }, false, false],
    // A name the writer will refuse still makes the records go by way of it: Kafka logs the refusal and archives them.
    [{ errorsDeadLetterQueueTopicName: 'no-prefix' }, true, true],
  ];
  for (const [own, shareVersion2, expected] of cases) {
    const source = sharePartitionConfigSource(
      DEFAULT_SHARE_GROUP_CONFIG,
      () => own,
      () => shareVersion2,
    );
    assert.equal(source('g').deadLetterQueue, expected, `${JSON.stringify(own)} share.version 2: ${shareVersion2}`);
  }
});
