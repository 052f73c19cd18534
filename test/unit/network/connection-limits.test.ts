import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConnectionLimits, normalizeIp } from '../../../src/network/connection-limits.js';

test('max.connections.per.ip, its overrides and max.connections; a released connection frees its slot', () => {
  const limits = new ConnectionLimits({
    maxConnections: 5,
    maxConnectionsPerIp: 2,
    maxConnectionsPerIpOverrides: new Map([
      ['10.0.0.9', 3],
      ['10.0.0.66', 0],
    ]),
  });
  assert.equal(limits.tryAcquire('10.0.0.1'), null);
  assert.equal(limits.tryAcquire('10.0.0.1'), null);
  assert.match(limits.tryAcquire('10.0.0.1')!, /max\.connections\.per\.ip \(2\) reached for 10\.0\.0\.1/);
  assert.match(limits.tryAcquire('10.0.0.66')!, /max\.connections\.per\.ip \(0\)/);
  for (let i = 0; i < 3; i++) assert.equal(limits.tryAcquire('10.0.0.9'), null);
  assert.match(limits.tryAcquire('10.0.0.2')!, /max\.connections \(5\) reached/);
  limits.release('10.0.0.1');
  assert.equal(limits.tryAcquire('10.0.0.2'), null);
  assert.match(limits.tryAcquire('10.0.0.1')!, /max\.connections \(5\)/);
});

test('an IPv4 client of a dual-stack listener counts under its IPv4 address', () => {
  assert.equal(normalizeIp('::ffff:127.0.0.1'), '127.0.0.1');
  assert.equal(normalizeIp('::1'), '::1');
});
