/** The `group.share.*` broker keys: Kafka 4.4's defaults, bounds and cross-key checks, built into ShareGroupConfig. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildConfig, ConfigError } from '../../../src/broker/config.js';
import { DEFAULT_SHARE_GROUP_CONFIG } from '../../../src/coordinator/group/share/share-group-config.js';

const build = (settings: Record<string, string> = {}) =>
  buildConfig(new Map(Object.entries({ 'log.dirs': '/tmp/sluice-share-config', ...settings }))).config;

function refused(settings: Record<string, string>, key: string, message: RegExp): void {
  assert.throws(
    () => build(settings),
    (e: unknown) => e instanceof ConfigError && e.message.includes(key) && message.test(e.message),
  );
}

describe('share group configuration', () => {
  test("Kafka 4.4's defaults, and the group coordinator's share settings follow them", () => {
    const config = build();
    assert.deepEqual(config.shareGroup, DEFAULT_SHARE_GROUP_CONFIG);
    assert.equal(config.groupCoordinator.shareGroupMaxSize, 200);
    assert.equal(config.groupCoordinator.shareGroupSessionTimeoutMs, 45_000);
    assert.equal(config.groupCoordinator.shareGroupHeartbeatIntervalMs, 5_000);
    assert.deepEqual(config.groupCoordinator.shareGroupAssignors, ['simple']);
    assert.equal(config.groupCoordinator.shareGroupInitializeRetryIntervalMs, 30_000);
  });

  test('values are taken from the settings', () => {
    const config = build({
      'group.share.max.size': '10',
      'group.share.record.lock.duration.ms': '20000',
      'group.share.delivery.count.limit': '3',
      'group.share.session.timeout.ms': '50000',
    });
    assert.equal(config.shareGroup.maxSize, 10);
    assert.equal(config.groupCoordinator.shareGroupMaxSize, 10);
    assert.equal(config.shareGroup.recordLockDurationMs, 20_000);
    assert.equal(config.shareGroup.deliveryCountLimit, 3);
    assert.equal(config.groupCoordinator.shareGroupSessionTimeoutMs, 50_000);
  });

  test("each key's own bounds", () => {
    refused({ 'group.share.max.size': '1001' }, 'group.share.max.size', /1000/);
    refused({ 'group.share.delivery.count.limit': '1' }, 'group.share.delivery.count.limit', /2/);
    refused({ 'group.share.record.lock.duration.ms': '999' }, 'group.share.record.lock.duration.ms', /1000/);
    refused({ 'group.share.partition.max.record.locks': '10001' }, 'group.share.partition.max.record.locks', /10000/);
    refused({ 'group.share.assignors': 'uniform' }, 'group.share.assignors', /simple/);
  });

  test("Kafka's checks between keys", () => {
    refused(
      { 'group.share.heartbeat.interval.ms': '4000' },
      'group.share.heartbeat.interval.ms',
      /must be greater than or equal to group.share.min.heartbeat.interval.ms/,
    );
    refused(
      { 'group.share.session.timeout.ms': '61000' },
      'group.share.session.timeout.ms',
      /must be less than or equal to group.share.max.session.timeout.ms/,
    );
    refused(
      { 'group.share.max.heartbeat.interval.ms': '60000', 'group.share.heartbeat.interval.ms': '50000' },
      'group.share.heartbeat.interval.ms',
      /must be less than group.share.session.timeout.ms/,
    );
    refused(
      { 'group.share.record.lock.duration.ms': '10000' },
      'group.share.record.lock.duration.ms',
      /must be greater than or equal to group.share.min.record.lock.duration.ms/,
    );
    refused(
      { 'group.share.delivery.count.limit': '10', 'group.share.max.delivery.count.limit': '8' },
      'group.share.max.delivery.count.limit',
      /must be greater than or equal to group.share.delivery.count.limit/,
    );
    refused(
      { 'group.share.max.share.sessions': '100' },
      'group.share.max.share.sessions',
      /must be greater than or equal to group.share.max.size/,
    );
    refused({ 'group.share.assignors': 'simple,simple' }, 'group.share.assignors', /exactly one assignor, but found 2/);
  });
});
