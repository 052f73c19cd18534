/**
 * `metrics.listener`: off by default, http://host:port (IPv6 in brackets, port 0 allowed), anything else refused.
 * `metrics.consumergroup.lag.max.partitions`: 10000 by default, any int from 0.
 * `metrics.producer.clients.max` / `.idle.ms`: the per-client produce breakdown's bound.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, buildConfig } from '../../../src/broker/config.js';

function metricsListener(value?: string): ReturnType<typeof buildConfig>['config']['metricsListener'] {
  const settings = new Map([['log.dirs', '/tmp/sluice-metrics-config']]);
  if (value !== undefined) settings.set('metrics.listener', value);
  return buildConfig(settings).config.metricsListener;
}

test('metrics.listener is off unless set', () => {
  assert.equal(metricsListener(), null);
});

test('metrics.listener takes http://host:port', () => {
  assert.deepEqual(metricsListener('http://127.0.0.1:9404'), { host: '127.0.0.1', port: 9404 });
  assert.deepEqual(metricsListener('http://0.0.0.0:0'), { host: '0.0.0.0', port: 0 });
  assert.deepEqual(metricsListener('http://[::1]:9404/'), { host: '::1', port: 9404 });
  assert.deepEqual(metricsListener('http://localhost:9404'), { host: 'localhost', port: 9404 });
});

test('other forms are refused, naming the key', () => {
  for (const bad of [
    '127.0.0.1:9404',
    'https://127.0.0.1:9404',
    'http://127.0.0.1',
    'http://127.0.0.1:70000',
    'http://127.0.0.1:9404/metrics',
  ]) {
    assert.throws(
      () => metricsListener(bad),
      (e: unknown) => e instanceof ConfigError && e.key === 'metrics.listener',
      bad,
    );
  }
});

test('metrics.consumergroup.lag.max.partitions: 10000 unless set, never negative', () => {
  const maxLag = (value?: string): number => {
    const settings = new Map([['log.dirs', '/tmp/sluice-metrics-config']]);
    if (value !== undefined) settings.set('metrics.consumergroup.lag.max.partitions', value);
    return buildConfig(settings).config.metricsLagMaxPartitions;
  };
  assert.equal(maxLag(), 10_000);
  assert.equal(maxLag('0'), 0);
  assert.equal(maxLag('250000'), 250_000);
  for (const bad of ['-1', 'many', '1.5']) {
    assert.throws(
      () => maxLag(bad),
      (e: unknown) => e instanceof ConfigError && e.key === 'metrics.consumergroup.lag.max.partitions',
      bad,
    );
  }
});

test('metrics.producer.clients.max (1000, 0 turns it off) and metrics.producer.clients.idle.ms (an hour, at least 1)', () => {
  const clients = (max?: string, idle?: string): { maxClients: number; idleMs: number } => {
    const settings = new Map([['log.dirs', '/tmp/sluice-metrics-config']]);
    if (max !== undefined) settings.set('metrics.producer.clients.max', max);
    if (idle !== undefined) settings.set('metrics.producer.clients.idle.ms', idle);
    return buildConfig(settings).config.metricsProducerClients;
  };
  assert.deepEqual(clients(), { maxClients: 1000, idleMs: 3_600_000 });
  assert.deepEqual(clients('0', '60000'), { maxClients: 0, idleMs: 60_000 });
  for (const bad of ['-1', 'lots'])
    assert.throws(
      () => clients(bad),
      (e: unknown) => e instanceof ConfigError && e.key === 'metrics.producer.clients.max',
      bad,
    );
  for (const bad of ['0', '-5'])
    assert.throws(
      () => clients(undefined, bad),
      (e: unknown) => e instanceof ConfigError && e.key === 'metrics.producer.clients.idle.ms',
      bad,
    );
});
