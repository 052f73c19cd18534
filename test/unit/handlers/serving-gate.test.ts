/**
 * Requests that reach the dispatcher before the broker can serve them wait at its gate, in the
 * order they came, and are answered once it opens; a start-up that fails rejects them, which
 * closes their connections.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BrokerMetrics } from '../../../src/common/metrics/broker-metrics.js';
import { Logger } from '../../../src/common/logger.js';
import { decodeRequestHeader, decodeResponseHeader, encodeRequest } from '@sluice/protocol/envelope.js';
import { ApiVersionsRequest } from '@sluice/protocol/messages/index.js';
import { Reader } from '@sluice/protocol/primitives/reader.js';
import { HANDLERS } from '../../../src/handlers/index.js';
import { HandlerRegistry } from '../../../src/handlers/registry.js';
import { RequestDispatcher } from '../../../src/handlers/request-dispatcher.js';
import { ServingGate } from '../../../src/handlers/serving-gate.js';
import type { ClusterContext } from '../../../src/handlers/cluster-context.js';
import { harness, TEST_SESSION } from './admin-harness.js';
import { settledYet } from '../../helpers/promise-state.js';

const registry = new HandlerRegistry(HANDLERS.filter((h) => h.apiKey === 18));

function apiVersions(dispatcher: RequestDispatcher, correlationId: number): Promise<unknown> {
  const frame = encodeRequest(18, 3, correlationId, 'gate-test', (w) =>
    ApiVersionsRequest.write(w, { clientSoftwareName: 'gate-test', clientSoftwareVersion: '1' }, 3),
  ).subarray(4);
  const { header, bodyOffset } = decodeRequestHeader(frame);
  return dispatcher.dispatch(header, new Reader(frame, bodyOffset), TEST_SESSION);
}

function correlationIdOf(response: unknown): number {
  assert.ok(Array.isArray(response), 'a response frame');
  return decodeResponseHeader(Buffer.concat(response as Buffer[]).subarray(4), 18, 3).correlationId;
}

test('requests before the gate opens wait, and are answered in order once it does', async () => {
  const h = harness();
  const gate = new ServingGate();
  // As in the broker, the cluster context exists from the moment the gate opens.
  let cluster: ClusterContext | undefined;
  const dispatcher = new RequestDispatcher(registry, new Logger('test'), new BrokerMetrics(), () => cluster, null, undefined, gate);
  const order: number[] = [];
  const held = [1, 2, 3].map((id) => apiVersions(dispatcher, id).then((r) => void order.push(correlationIdOf(r))));
  assert.equal(await settledYet(Promise.all(held)), false, 'answered before the gate opened');
  cluster = h.cluster;
  gate.open();
  await Promise.all(held);
  assert.deepEqual(order, [1, 2, 3]);
  assert.equal(correlationIdOf(await apiVersions(dispatcher, 4)), 4, 'a request after the gate opened');
  h.close();
});

test('a start-up that fails rejects the held requests and every later one with its error', async () => {
  const gate = new ServingGate();
  const dispatcher = new RequestDispatcher(registry, new Logger('test'), new BrokerMetrics(), () => undefined, null, undefined, gate);
  const held = apiVersions(dispatcher, 1);
  gate.fail(new Error('log dir unreadable'));
  gate.open();
  await assert.rejects(held, /log dir unreadable/);
  await assert.rejects(apiVersions(dispatcher, 2), /log dir unreadable/);
});

test('a gate failed with nothing held reports no unhandled rejection', async () => {
  const unhandled: unknown[] = [];
  const record = (reason: unknown): void => void unhandled.push(reason);
  process.on('unhandledRejection', record);
  try {
    new ServingGate().fail(new Error('nothing held'));
    // Fixed on purpose: the test is that no rejection is reported, so it gives node the time to report one.
    await new Promise((r) => setTimeout(r, 10));
  } finally {
    process.off('unhandledRejection', record);
  }
  assert.deepEqual(unhandled, []);
});
