/**
 * The differential harness's comparator (test/helpers/response-diff.ts), which test/compat/
 * relies on to report every difference between Sluice's and Kafka's answers: each difference
 * named by its path, masks that drop or reduce fields, and arrays compared regardless of order.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ZERO_UUID } from '@sluice/protocol/common/uuid.js';
import { responseDifferences } from '../../helpers/response-diff.js';

const answer = (errorCode: number, offset: bigint, extra: Record<string, unknown> = {}) => ({
  throttleTimeMs: 0,
  topics: [
    {
      name: 't',
      topicId: 'id-1',
      partitions: [
        { partitionIndex: 0, errorCode: 0, offset: 5n },
        { partitionIndex: 2, errorCode, offset },
      ],
    },
  ],
  ...extra,
});

describe('responseDifferences', () => {
  test('names each differing field by its path, with both values', () => {
    assert.deepEqual(responseDifferences(answer(6, -1n), answer(3, -1n)), ['topics[0].partitions[1].errorCode: Sluice 3, Kafka 6']);
    assert.deepEqual(responseDifferences(answer(0, 7n), answer(0, 8n)), ['topics[0].partitions[1].offset: Sluice "8", Kafka "7"']);
    assert.deepEqual(responseDifferences(answer(0, 1n), answer(0, 1n)), []);
  });

  test('reports missing and extra entries and fields', () => {
    const kafka = { items: [1, 2], a: 1 };
    const sluice = { items: [1], b: 2 };
    assert.deepEqual(responseDifferences(kafka, sluice), [
      'items.length: Sluice 1, Kafka 2',
      'items[1]: Sluice <absent>, Kafka 2',
      'a: Sluice <absent>, Kafka 1',
      'b: Sluice 2, Kafka <absent>',
    ]);
  });

  test('a mask drops a field, or keeps only the kind of value it holds', () => {
    const kafka = answer(0, 1n, { throttleTimeMs: 50 });
    const sluice = { ...answer(0, 1n), topics: [{ ...answer(0, 1n).topics[0]!, topicId: 'id-2' }] };
    assert.deepEqual(responseDifferences(kafka, sluice), [
      'throttleTimeMs: Sluice 0, Kafka 50',
      'topics[0].topicId: Sluice "id-2", Kafka "id-1"',
    ]);
    const mask = [
      { path: '**.throttleTimeMs', treat: 'ignored', why: 'test' },
      { path: 'topics[].topicId', treat: 'kind', why: 'test' },
    ] as const;
    assert.deepEqual(responseDifferences(kafka, sluice, { mask }), []);
    const zeroId = { ...answer(0, 1n), topics: [{ ...answer(0, 1n).topics[0]!, topicId: ZERO_UUID }] };
    assert.deepEqual(
      responseDifferences(kafka, zeroId, { mask }),
      ['topics[0].topicId: Sluice "<zero uuid>", Kafka "<string>"'],
      'the zero id is not any id',
    );
  });

  test('a mask can select entries by name', () => {
    const configs = (source: number) => ({
      configs: [
        { name: 'min.insync.replicas', configSource: source },
        { name: 'retention.ms', configSource: source },
      ],
    });
    const mask = [{ path: 'configs[name=min.insync.replicas].configSource', treat: 'ignored', why: 'test' }] as const;
    assert.deepEqual(responseDifferences(configs(3), configs(5), { mask }), ['configs[1].configSource: Sluice 5, Kafka 3']);
    const features = (...names: string[]) => ({ features: names.map((name) => ({ name, level: 1 })) });
    const kraftOnly = [{ path: 'features[name=metadata.version]', treat: 'ignored', why: 'test' }] as const;
    assert.deepEqual(
      responseDifferences(features('group.version', 'metadata.version'), features('group.version'), { mask: kraftOnly }),
      [],
      'an ignored entry leaves its array',
    );
  });

  test('unordered arrays are compared as sets', () => {
    const kafka = { groups: [{ groupId: 'b' }, { groupId: 'a' }] };
    const sluice = { groups: [{ groupId: 'a' }, { groupId: 'b' }] };
    assert.equal(responseDifferences(kafka, sluice).length, 2);
    assert.deepEqual(responseDifferences(kafka, sluice, { unordered: ['groups'] }), []);
    assert.deepEqual(responseDifferences(kafka, { groups: [{ groupId: 'a' }, { groupId: 'c' }] }, { unordered: ['groups'] }), [
      'groups[1].groupId: Sluice "c", Kafka "b"',
    ]);
  });
});
