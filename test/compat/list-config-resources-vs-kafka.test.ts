/**
 * ListConfigResources (KIP-1142) asked of Sluice and Apache Kafka side by side, with the same
 * topics on both: the same error for each filter, the same resources (topics come in no
 * particular order from Kafka, so they are compared as sets) and the types in the same order.
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '@sluice/protocol/errors.js';
import * as M from '@sluice/protocol/messages/index.js';
import { KAFKA_VERSION } from '../../tools/kafka/kafka-release.js';
import { javaSkip } from '../helpers/requirements.js';
import { sideBySide } from '../helpers/side-by-side.js';
import { wireCall } from '../helpers/wire-call.js';

const TOPICS = ['lcr-b', 'lcr-a', 'lcr-with-config'];

const QUESTIONS: ReadonlyArray<{ readonly version: number; readonly types: readonly number[] }> = [
  { version: 0, types: [] },
  { version: 1, types: [] },
  ...[2, 4, 8, 16, 32].map((t) => ({ version: 1, types: [t] })),
  { version: 1, types: [2, 4] },
  { version: 1, types: [32, 16, 8] },
  { version: 1, types: [1] },
  { version: 1, types: [4, 99] },
];

/** What a broker answered, in a form two brokers can be compared by. */
function summary(r: M.ListConfigResourcesResponseData): { errorCode: number; typeOrder: number[]; resources: string[] } {
  const typeOrder = r.configResources.map((c) => c.resourceType).filter((t, i, all) => i === 0 || all[i - 1] !== t);
  return { errorCode: r.errorCode, typeOrder, resources: r.configResources.map((c) => `${c.resourceType}:${c.resourceName}`).sort() };
}

async function ask(bootstrap: string): Promise<string[]> {
  const answers: string[] = [];
  for (const q of QUESTIONS) {
    const r = await wireCall(bootstrap, M.ListConfigResourcesRequest, M.ListConfigResourcesResponse, q.version, {
      resourceTypes: [...q.types],
    });
    answers.push(`v${q.version} ${JSON.stringify(q.types)}: ${JSON.stringify(summary(r))}`);
  }
  return answers;
}

describe(`ListConfigResources, Sluice against Apache Kafka ${KAFKA_VERSION}`, { skip: javaSkip() }, () => {
  // The reference broker is node 1; so is Sluice here, so that broker resources have the same names.
  const brokers = sideBySide({ 'node.id': '1' });

  before(async () => {
    for (const bootstrap of [brokers().sluice.bootstrap, brokers().kafka.bootstrap]) {
      const created = await wireCall(bootstrap, M.CreateTopicsRequest, M.CreateTopicsResponse, 7, {
        timeoutMs: 10_000,
        topics: TOPICS.map((name) => ({
          name,
          numPartitions: 1,
          replicationFactor: 1,
          configs: name === 'lcr-with-config' ? [{ name: 'retention.ms', value: '100000' }] : [],
        })),
      });
      for (const t of created.topics) assert.equal(t.errorCode, ErrorCode.NONE, `${t.name}: ${t.errorMessage}`);
    }
  });

  test('every filter gets the same answer from both', async () => {
    const [ours, theirs] = await Promise.all([ask(brokers().sluice.bootstrap), ask(brokers().kafka.bootstrap)]);
    assert.deepEqual(ours, theirs);
    assert.ok(
      theirs.some((a) => a.includes('2:lcr-with-config')),
      'the topics are listed',
    );
  });
});
