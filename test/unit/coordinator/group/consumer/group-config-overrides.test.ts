/**
 * A group's config resource (`consumer.heartbeat.interval.ms`, `consumer.session.timeout.ms`)
 * overrides the broker's settings for that group only, read on every heartbeat so a change applies live.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CoordinatorRecord } from '../../../../../src/coordinator/group/records.js';
import type { GroupOverrides } from '../../../../../src/coordinator/group/config.js';
import { Client, FakeTopics, GROUP, newCoordinator } from './harness.js';

test('the heartbeat interval and session timeout follow the group override, live', () => {
  const topics = new FakeTopics();
  topics.add('t', 2);
  const overrides = new Map<string, GroupOverrides>();
  const c = newCoordinator({ groupOverrides: (groupId) => overrides.get(groupId) ?? {} });
  const a = new Client(c, topics, 'a', [] as CoordinatorRecord[]);
  assert.equal(a.join(0).heartbeatIntervalMs, 5000);
  assert.equal(c.nextDeadline(), 45_000, "the broker's session timeout");

  overrides.set(GROUP, { consumerHeartbeatIntervalMs: 7000, consumerSessionTimeoutMs: 50_000 });
  assert.equal(a.heartbeat(1000).heartbeatIntervalMs, 7000);
  assert.equal(c.nextDeadline(), 51_000, "the group's session timeout from the last heartbeat");

  overrides.set('another-group', { consumerHeartbeatIntervalMs: 9000 });
  overrides.delete(GROUP);
  assert.equal(a.heartbeat(2000).heartbeatIntervalMs, 5000, 'an override removed falls back to the broker setting');
});
