/**
 * The main thread's instruments: each update moves exactly its series by the right amount, and
 * histograms put observations in the right buckets.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BrokerMetrics } from '../../../src/common/metrics/broker-metrics.js';
import { parseExposition, total } from './prometheus-text-helper.js';

test('requests are counted and timed per API and version', async () => {
  const m = new BrokerMetrics();
  m.requestServed('Produce', 9, 0.003);
  m.requestServed('Produce', 9, 0.004);
  m.requestServed('Produce', 7, 0.2);
  m.requestServed('Fetch', 12, 1.5);
  const s = parseExposition(await m.registry.metrics());
  assert.equal(total(s, 'sluice_requests_total', { api: 'Produce', version: '9' }), 2);
  assert.equal(total(s, 'sluice_requests_total', { api: 'Produce', version: '7' }), 1);
  assert.equal(total(s, 'sluice_requests_total', { api: 'Fetch', version: '12' }), 1);
  assert.equal(total(s, 'sluice_request_duration_seconds_count', { api: 'Produce', version: '9' }), 2);
  assert.ok(Math.abs(total(s, 'sluice_request_duration_seconds_sum', { api: 'Produce', version: '9' }) - 0.007) < 1e-9);
  assert.equal(total(s, 'sluice_request_duration_seconds_bucket', { api: 'Produce', version: '9', le: '0.0025' }), 0);
  assert.equal(total(s, 'sluice_request_duration_seconds_bucket', { api: 'Produce', version: '9', le: '0.005' }), 2);
  assert.equal(total(s, 'sluice_request_duration_seconds_bucket', { api: 'Fetch', version: '12', le: '1' }), 0);
  assert.equal(total(s, 'sluice_request_duration_seconds_bucket', { api: 'Fetch', version: '12', le: '2.5' }), 1);
});

test('errors are counted per API and error code; failures per API', async () => {
  const m = new BrokerMetrics();
  m.requestError('Produce', 3, 'UNKNOWN_TOPIC_OR_PARTITION');
  m.requestError('Produce', 3, 'UNKNOWN_TOPIC_OR_PARTITION');
  m.requestError('Fetch', 1, 'OFFSET_OUT_OF_RANGE');
  m.requestFailed('Metadata');
  const s = parseExposition(await m.registry.metrics());
  assert.equal(total(s, 'sluice_request_errors_total', { api: 'Produce', error_code: '3', error: 'UNKNOWN_TOPIC_OR_PARTITION' }), 2);
  assert.equal(total(s, 'sluice_request_errors_total', { api: 'Fetch', error_code: '1', error: 'OFFSET_OUT_OF_RANGE' }), 1);
  assert.equal(total(s, 'sluice_request_errors_total', { api: 'Fetch' }), 1);
  assert.equal(total(s, 'sluice_request_failures_total', { api: 'Metadata' }), 1);
});

test('produce batches count messages and bytes per topic and fill the batch histograms', async () => {
  const m = new BrokerMetrics();
  m.produceRequest(2);
  m.batchAppended('orders', 1000, 10);
  m.batchAppended('orders', 200, 1);
  m.produceRequest(1);
  m.batchAppended('audit', 70, 1);
  const s = parseExposition(await m.registry.metrics());
  assert.equal(total(s, 'sluice_topic_messages_in_total', { topic: 'orders' }), 11);
  assert.equal(total(s, 'sluice_topic_bytes_in_total', { topic: 'orders' }), 1200);
  assert.equal(total(s, 'sluice_topic_messages_in_total', { topic: 'audit' }), 1);
  assert.equal(total(s, 'sluice_topic_bytes_in_total', { topic: 'audit' }), 70);
  assert.equal(total(s, 'sluice_produce_batch_size_bytes_count'), 3);
  assert.equal(total(s, 'sluice_produce_batch_size_bytes_sum'), 1270);
  assert.equal(total(s, 'sluice_produce_batch_size_bytes_bucket', { le: '128' }), 1);
  assert.equal(total(s, 'sluice_produce_batch_size_bytes_bucket', { le: '512' }), 2);
  assert.equal(total(s, 'sluice_produce_batch_size_bytes_bucket', { le: '2048' }), 3);
  assert.equal(total(s, 'sluice_produce_batch_records_bucket', { le: '1' }), 2);
  assert.equal(total(s, 'sluice_produce_batch_records_bucket', { le: '10' }), 3);
  assert.equal(total(s, 'sluice_produce_batch_records_sum'), 12);
  assert.equal(total(s, 'sluice_produce_request_batches_count'), 2);
  assert.equal(total(s, 'sluice_produce_request_batches_sum'), 3);
  assert.equal(total(s, 'sluice_produce_request_batches_bucket', { le: '1' }), 1);
});

test('fetched bytes per topic, and bytes sent by sendfile apart from buffered writes', async () => {
  const m = new BrokerMetrics();
  m.bytesFetched('orders', 1200);
  m.bytesFetched('orders', 300);
  m.zeroCopyBytesSent(1500);
  m.bufferedBytesSent(90);
  m.bufferedBytesSent(10);
  const s = parseExposition(await m.registry.metrics());
  assert.equal(total(s, 'sluice_topic_bytes_out_total', { topic: 'orders' }), 1500);
  assert.equal(total(s, 'sluice_network_bytes_sent_total', { path: 'zero_copy' }), 1500);
  assert.equal(total(s, 'sluice_network_bytes_sent_total', { path: 'buffered' }), 100);
});

test('client quota throttles are counted per quota type and entity tags; sensor rates are read at each scrape', async () => {
  const m = new BrokerMetrics();
  m.clientQuotaThrottled('Produce', '', 'app', 250);
  m.clientQuotaThrottled('Produce', '', 'app', 750);
  m.clientQuotaThrottled('Request', 'alice', '', 40);
  let rate = 1000;
  m.clientQuotaSensors(() => [{ type: 'Fetch', tags: { user: 'alice', clientId: '' }, rate }]);
  let s = parseExposition(await m.registry.metrics());
  assert.equal(total(s, 'sluice_client_quota_throttle_time_ms_total', { quota_type: 'Produce', user: '', client_id: 'app' }), 1000);
  assert.equal(total(s, 'sluice_client_quota_throttles_total', { quota_type: 'Produce', user: '', client_id: 'app' }), 2);
  assert.equal(total(s, 'sluice_client_quota_throttle_time_ms_total', { quota_type: 'Request', user: 'alice', client_id: '' }), 40);
  assert.equal(total(s, 'sluice_client_quota_rate', { quota_type: 'Fetch', user: 'alice', client_id: '' }), 1000);
  rate = 250;
  s = parseExposition(await m.registry.metrics());
  assert.equal(total(s, 'sluice_client_quota_rate', { quota_type: 'Fetch', user: 'alice', client_id: '' }), 250);
});
