/**
 * Dynamic broker configs (per broker, cluster default, per-broker-only keys, live connection
 * limits) and the GROUP config resource through the config handlers, over a real LocalController.
 */
import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as M from '@sluice/protocol/messages/index.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { ConfigSource } from '../../../src/metadata/config/config-definitions.js';
import { MetadataStore } from '../../../src/metadata/metadata-store.js';
import { LocalController } from '../../../src/controller/local/local-controller.js';
import { describeConfigsHandler } from '../../../src/handlers/32-describe-configs.js';
import { alterConfigsHandler } from '../../../src/handlers/33-alter-configs.js';
import { incrementalAlterConfigsHandler } from '../../../src/handlers/44-incremental-alter-configs.js';
import { listConfigResourcesHandler } from '../../../src/handlers/74-list-config-resources.js';
import { liveConnectionLimits } from '../../../src/broker/live-connection-limits.js';
import { ConnectionLimits } from '../../../src/network/connection-limits.js';
import type { BrokerConfig } from '../../../src/broker/config.js';
import { Logger } from '../../../src/common/logger.js';
import { call, harness, type Harness } from './admin-harness.js';

const GROUP = 32;
const BROKER = 4;
const SET = 0;
const DELETE = 1;

const open: Harness[] = [];
function fresh(options: Parameters<typeof harness>[0] = {}): Harness {
  const h = harness(options);
  open.push(h);
  return h;
}
afterEach(() => {
  for (const h of open.splice(0)) h.close();
});

type Alteration = { name: string; configOperation: number; value: string | null };
function incremental(h: Harness, resourceType: number, resourceName: string, configs: Alteration[], validateOnly = false) {
  return call(
    incrementalAlterConfigsHandler,
    M.IncrementalAlterConfigsRequest,
    M.IncrementalAlterConfigsResponse,
    1,
    { validateOnly, resources: [{ resourceType, resourceName, configs }] },
    h.cluster,
  );
}
function describeOne(h: Harness, resourceType: number, resourceName: string, keys: string[] | null) {
  return call(
    describeConfigsHandler,
    M.DescribeConfigsRequest,
    M.DescribeConfigsResponse,
    4,
    { includeSynonyms: true, resources: [{ resourceType, resourceName, configurationKeys: keys }] },
    h.cluster,
  );
}

describe('dynamic broker configs', () => {
  test('precedence: this broker > cluster default > server.properties > default, with sources and synonyms', async () => {
    const h = fresh({ staticSettings: new Map([['message.max.bytes', '2000000']]) });
    const source = async () => {
      const d = await describeOne(h, BROKER, '0', ['message.max.bytes']);
      const e = d.results[0]!.configs[0]!;
      return [e.value, e.configSource, e.synonyms.map((s) => s.source)];
    };
    assert.deepEqual(await source(), ['2000000', ConfigSource.STATIC_BROKER_CONFIG, [4, 5]]);
    assert.equal(
      (await incremental(h, BROKER, '', [{ name: 'message.max.bytes', configOperation: SET, value: '3000000' }])).responses[0]!.errorCode,
      0,
    );
    assert.deepEqual(await source(), ['3000000', ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG, [3, 4, 5]]);
    assert.equal(
      (await incremental(h, BROKER, '0', [{ name: 'message.max.bytes', configOperation: SET, value: '4000000' }])).responses[0]!.errorCode,
      0,
    );
    assert.deepEqual(await source(), ['4000000', ConfigSource.DYNAMIC_BROKER_CONFIG, [2, 3, 4, 5]]);
    // Topics inherit it live: the partition owners were reconfigured with the new max.message.bytes.
    const clusterDefault = await describeOne(h, BROKER, '', null);
    assert.deepEqual(
      clusterDefault.results[0]!.configs.map((c) => [c.name, c.value, c.configSource]),
      [['message.max.bytes', '3000000', 3]],
    );
    assert.equal(
      (await incremental(h, BROKER, '0', [{ name: 'message.max.bytes', configOperation: DELETE, value: null }])).responses[0]!.errorCode,
      0,
    );
    assert.deepEqual((await source()).slice(0, 2), ['3000000', ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG]);
  });

  test("Kafka's reconfigurable keys are accepted; per-broker keys are refused on the cluster default; validate_only stores nothing", async () => {
    const h = fresh();
    const ok = await incremental(h, BROKER, '0', [
      { name: 'sasl.kerberos.min.time.before.relogin', configOperation: SET, value: '120000' },
      { name: 'log.cleaner.threads', configOperation: SET, value: '2' },
      { name: 'max.connections', configOperation: SET, value: '100' },
      { name: 'listeners', configOperation: SET, value: 'PLAINTEXT://127.0.0.1:9092' },
    ]);
    assert.equal(ok.responses[0]!.errorCode, 0);
    const perBroker = await incremental(h, BROKER, '', [
      { name: 'sasl.kerberos.min.time.before.relogin', configOperation: SET, value: '1000' },
    ]);
    assert.deepEqual(
      [perBroker.responses[0]!.errorCode, perBroker.responses[0]!.errorMessage],
      [
        ErrorCode.INVALID_REQUEST,
        'Cannot update these configs at default cluster level, broker id must be specified: [sasl.kerberos.min.time.before.relogin]',
      ],
    );
    const tls = await incremental(h, BROKER, '0', [{ name: 'ssl.keystore.location', configOperation: SET, value: '/tmp/ks.p12' }]);
    assert.deepEqual(
      [tls.responses[0]!.errorCode, tls.responses[0]!.errorMessage],
      [
        ErrorCode.INVALID_REQUEST,
        'These security configs can be dynamically updated only per-listener using the listener prefix: [ssl.keystore.location]',
      ],
    );
    const secret = await incremental(h, BROKER, '0', [{ name: 'sasl.jaas.config', configOperation: SET, value: 'hunter2' }]);
    assert.equal(secret.responses[0]!.errorCode, ErrorCode.INVALID_CONFIG);
    assert.doesNotMatch(secret.responses[0]!.errorMessage ?? '', /hunter2/);
    assert.equal(h.cluster.metadata.dynamicConfigs('node').get('sasl.jaas.config'), undefined);
    const fixed = await incremental(h, BROKER, '0', [{ name: 'log.dirs', configOperation: SET, value: '/x' }]);
    assert.deepEqual(
      [fixed.responses[0]!.errorCode, fixed.responses[0]!.errorMessage],
      [ErrorCode.INVALID_REQUEST, 'Cannot update these configs dynamically: [log.dirs]'],
    );
    const bad = await incremental(h, BROKER, '0', [{ name: 'max.connections.per.ip.overrides', configOperation: SET, value: 'nohost' }]);
    assert.equal(bad.responses[0]!.errorCode, ErrorCode.INVALID_CONFIG);
    assert.equal(
      (await incremental(h, BROKER, '0', [{ name: 'background.threads', configOperation: SET, value: '4' }], true)).responses[0]!.errorCode,
      0,
    );
    assert.equal(h.cluster.metadata.dynamicConfigs('node').get('background.threads'), undefined);
    assert.equal(h.cluster.metadata.dynamicConfigs('node').get('sasl.kerberos.min.time.before.relogin'), '120000');
  });

  test('max.connections changes the connection limits live', async () => {
    const h = fresh();
    const staticConfig = {
      maxConnections: 10,
      maxConnectionsPerIp: 10,
      maxConnectionsPerIpOverrides: new Map<string, number>(),
    } as unknown as BrokerConfig;
    const limits = new ConnectionLimits(liveConnectionLimits(staticConfig, () => h.cluster.configs));
    assert.equal(limits.tryAcquire('10.0.0.1'), null);
    assert.equal(
      (await incremental(h, BROKER, '', [{ name: 'max.connections.per.ip.overrides', configOperation: SET, value: '10.0.0.1:1' }]))
        .responses[0]!.errorCode,
      0,
    );
    assert.match(limits.tryAcquire('10.0.0.1') ?? '', /max.connections.per.ip \(1\)/);
    assert.equal(limits.tryAcquire('10.0.0.2'), null);
    assert.equal(
      (await incremental(h, BROKER, '0', [{ name: 'max.connections', configOperation: SET, value: '2' }])).responses[0]!.errorCode,
      0,
    );
    assert.match(limits.tryAcquire('10.0.0.3') ?? '', /max.connections \(2\)/);
  });
});

describe('GROUP config resource', () => {
  test('describes every key from its broker synonym until the group overrides it', async () => {
    const h = fresh({ staticSettings: new Map([['group.consumer.heartbeat.interval.ms', '6000']]) });
    const before = await describeOne(h, GROUP, 'g1', null);
    const byName = new Map(before.results[0]!.configs.map((c) => [c.name, c]));
    assert.equal(before.results[0]!.errorCode, 0);
    assert.ok(
      byName.has('share.record.lock.duration.ms') && byName.has('share.isolation.level') && byName.has('streams.num.standby.replicas'),
    );
    const hb = byName.get('consumer.heartbeat.interval.ms')!;
    assert.deepEqual(
      [hb.value, hb.configSource, hb.synonyms.map((s) => [s.name, s.source])],
      [
        '6000',
        ConfigSource.STATIC_BROKER_CONFIG,
        [
          ['group.consumer.heartbeat.interval.ms', 4],
          ['group.consumer.heartbeat.interval.ms', 5],
        ],
      ],
    );
    assert.deepEqual(
      [byName.get('share.auto.offset.reset')!.value, byName.get('share.auto.offset.reset')!.configSource],
      ['latest', ConfigSource.DEFAULT_CONFIG],
    );

    assert.equal(
      (
        await incremental(h, GROUP, 'g1', [
          { name: 'consumer.heartbeat.interval.ms', configOperation: SET, value: '7000' },
          { name: 'share.record.lock.duration.ms', configOperation: SET, value: '20000' },
        ])
      ).responses[0]!.errorCode,
      0,
    );
    const after = await describeOne(h, GROUP, 'g1', ['consumer.heartbeat.interval.ms']);
    const e = after.results[0]!.configs[0]!;
    assert.deepEqual(
      [e.value, e.configSource, e.synonyms.map((s) => s.source)],
      ['7000', ConfigSource.GROUP_CONFIG, [ConfigSource.GROUP_CONFIG, ConfigSource.STATIC_BROKER_CONFIG, ConfigSource.DEFAULT_CONFIG]],
    );
    assert.deepEqual(h.cluster.configs.groupConfig('g1'), { consumerHeartbeatIntervalMs: 7000, shareRecordLockDurationMs: 20000 });
    assert.deepEqual(h.cluster.configs.groupConfig('other'), {});
  });

  test("validation as Kafka's GroupConfig: unknown keys, broker ranges, session over heartbeat, enums", async () => {
    const h = fresh();
    const refused = async (configs: Alteration[]) => {
      const r = (await incremental(h, GROUP, 'g', configs)).responses[0]!;
      return [r.errorCode, r.errorMessage];
    };
    assert.deepEqual(await refused([{ name: 'nope', configOperation: SET, value: '1' }]), [
      ErrorCode.INVALID_CONFIG,
      'Unknown group config name: nope',
    ]);
    assert.deepEqual(await refused([{ name: 'consumer.heartbeat.interval.ms', configOperation: SET, value: '1000' }]), [
      ErrorCode.INVALID_CONFIG,
      'consumer.heartbeat.interval.ms must be in the range 5000 to 15000 inclusive.',
    ]);
    assert.deepEqual(await refused([{ name: 'consumer.session.timeout.ms', configOperation: SET, value: '70000' }]), [
      ErrorCode.INVALID_CONFIG,
      'consumer.session.timeout.ms must be in the range 45000 to 60000 inclusive.',
    ]);
    assert.deepEqual(
      (await refused([{ name: 'share.isolation.level', configOperation: SET, value: 'dirty' }]))[0],
      ErrorCode.INVALID_CONFIG,
    );
    assert.deepEqual(
      (await refused([{ name: 'share.auto.offset.reset', configOperation: SET, value: 'by_duration:PT1H' }]))[0],
      ErrorCode.NONE,
    );
    assert.deepEqual(
      (await refused([{ name: 'share.auto.offset.reset', configOperation: SET, value: 'sometimes' }]))[0],
      ErrorCode.INVALID_CONFIG,
    );
    assert.deepEqual(
      (await refused([{ name: 'share.delivery.count.limit', configOperation: SET, value: '11' }]))[0],
      ErrorCode.INVALID_CONFIG,
    );

    // The broker's own range decides: a broker that allows short sessions lets the heartbeat meet the session.
    const wide = fresh({
      staticSettings: new Map([
        ['group.consumer.min.session.timeout.ms', '1000'],
        ['group.consumer.min.heartbeat.interval.ms', '1000'],
      ]),
    });
    const r = (
      await incremental(wide, GROUP, 'g', [
        { name: 'consumer.session.timeout.ms', configOperation: SET, value: '2000' },
        { name: 'consumer.heartbeat.interval.ms', configOperation: SET, value: '2000' },
      ])
    ).responses[0]!;
    assert.deepEqual(
      [r.errorCode, r.errorMessage],
      [ErrorCode.INVALID_CONFIG, 'consumer.session.timeout.ms must be greater than consumer.heartbeat.interval.ms'],
    );
  });

  test('AlterConfigs replaces, validate_only stores nothing, ListConfigResources lists configured groups, the file keeps them', async () => {
    const h = fresh();
    const alter = (configs: { name: string; value: string }[], validateOnly = false) =>
      call(
        alterConfigsHandler,
        M.AlterConfigsRequest,
        M.AlterConfigsResponse,
        2,
        { validateOnly, resources: [{ resourceType: GROUP, resourceName: 'app', configs }] },
        h.cluster,
      );
    assert.equal((await alter([{ name: 'consumer.session.timeout.ms', value: '50000' }], true)).responses[0]!.errorCode, 0);
    assert.deepEqual(h.cluster.configs.groupConfig('app'), {});
    assert.equal((await alter([{ name: 'consumer.session.timeout.ms', value: '50000' }])).responses[0]!.errorCode, 0);
    const listed = await call(
      listConfigResourcesHandler,
      M.ListConfigResourcesRequest,
      M.ListConfigResourcesResponse,
      1,
      { resourceTypes: [GROUP] },
      h.cluster,
    );
    assert.deepEqual(
      listed.configResources.map((r) => [r.resourceName, r.resourceType]),
      [['app', GROUP]],
    );
    const reloaded = new LocalController(
      'c1uSTeR1dAAAAAAAAAAAAA',
      { nodeId: 0, host: '127.0.0.1', port: 9092, rack: null, endpoints: [] },
      new MetadataStore(h.dir),
    );
    assert.deepEqual([...reloaded.image.groupConfigs('app')], [['consumer.session.timeout.ms', '50000']]);
    assert.equal((await alter([])).responses[0]!.errorCode, 0);
    assert.deepEqual(h.cluster.metadata.configuredGroups(), []);
  });
});

describe('BROKER_LOGGER config resource', () => {
  const LOGGER = 8;

  function captureStderr(run: () => void): string {
    const original = process.stderr.write.bind(process.stderr);
    let out = '';
    process.stderr.write = (chunk: string | Uint8Array) => {
      out += String(chunk);
      return true;
    };
    try {
      run();
    } finally {
      process.stderr.write = original;
    }
    return out;
  }

  test("describes the broker's loggers; a level set live takes effect at once and DELETE returns to root's", async () => {
    const h = fresh();
    const network = new Logger('network', { nodeId: 0 }, h.cluster.brokerLoggers);
    const listed = await describeOne(h, LOGGER, '0', null);
    assert.deepEqual(
      listed.results[0]!.configs.map((c) => [c.name, c.value, c.configSource, c.readOnly]),
      [
        ['root', 'INFO', ConfigSource.DYNAMIC_BROKER_LOGGER_CONFIG, false],
        ['network', 'INFO', ConfigSource.DYNAMIC_BROKER_LOGGER_CONFIG, false],
      ],
    );
    assert.equal(
      captureStderr(() => network.debug('hidden')),
      '',
    );

    assert.equal(
      (await incremental(h, LOGGER, '0', [{ name: 'network', configOperation: SET, value: 'DEBUG' }])).responses[0]!.errorCode,
      0,
    );
    assert.match(
      captureStderr(() => network.debug('shown')),
      /DEBUG \[network node=0\] shown/,
    );
    assert.equal((await describeOne(h, LOGGER, '0', ['network'])).results[0]!.configs[0]!.value, 'DEBUG');

    assert.equal(
      (
        await incremental(h, LOGGER, '0', [
          { name: 'root', configOperation: SET, value: 'ERROR' },
          { name: 'network', configOperation: DELETE, value: null },
        ])
      ).responses[0]!.errorCode,
      0,
    );
    assert.equal(
      captureStderr(() => network.warn('below error')),
      '',
    );
    assert.equal((await describeOne(h, LOGGER, '0', ['network'])).results[0]!.configs[0]!.value, 'ERROR');
  });

  test("Kafka's refusals: unknown logger, bad level, root removed, APPEND, other broker ids, legacy AlterConfigs, validate_only", async () => {
    const h = fresh();
    new Logger('groups', { nodeId: 0 }, h.cluster.brokerLoggers);
    const answer = async (configs: Alteration[], name = '0', validateOnly = false) => {
      const r = (await incremental(h, LOGGER, name, configs, validateOnly)).responses[0]!;
      return [r.errorCode, r.errorMessage];
    };
    assert.deepEqual(await answer([{ name: 'kafka.server.KafkaApis', configOperation: SET, value: 'DEBUG' }]), [
      ErrorCode.INVALID_CONFIG,
      'Logger kafka.server.KafkaApis does not exist!',
    ]);
    assert.deepEqual(await answer([{ name: 'groups', configOperation: SET, value: 'LOUD' }]), [
      ErrorCode.INVALID_CONFIG,
      'Cannot set the log level of groups to LOUD as it is not a supported log level. Valid log levels are DEBUG, ERROR, FATAL, INFO, TRACE, WARN',
    ]);
    assert.deepEqual(await answer([{ name: 'root', configOperation: DELETE, value: null }]), [
      ErrorCode.INVALID_REQUEST,
      'Removing the log level of the root logger is not allowed',
    ]);
    assert.deepEqual(await answer([{ name: 'groups', configOperation: 2, value: 'DEBUG' }]), [
      ErrorCode.INVALID_REQUEST,
      'APPEND operation is not allowed for the BROKER_LOGGER resource',
    ]);
    assert.deepEqual(await answer([{ name: 'groups', configOperation: SET, value: 'DEBUG' }], '7'), [
      ErrorCode.INVALID_REQUEST,
      'Unexpected broker id, expected 0 but received 7',
    ]);
    assert.deepEqual(await answer([{ name: 'groups', configOperation: SET, value: 'DEBUG' }], ''), [
      ErrorCode.INVALID_REQUEST,
      'Broker id must not be empty',
    ]);
    assert.deepEqual(await answer([{ name: 'groups', configOperation: SET, value: 'WARN' }], '0', true), [ErrorCode.NONE, null]);
    assert.equal(h.cluster.brokerLoggers.level('groups'), 'INFO', 'validate_only changes nothing');
    const legacy = await call(
      alterConfigsHandler,
      M.AlterConfigsRequest,
      M.AlterConfigsResponse,
      2,
      { validateOnly: false, resources: [{ resourceType: LOGGER, resourceName: '0', configs: [{ name: 'groups', value: 'DEBUG' }] }] },
      h.cluster,
    );
    assert.equal(legacy.responses[0]!.errorCode, ErrorCode.INVALID_REQUEST);
    assert.equal(h.cluster.brokerLoggers.level('groups'), 'INFO');
  });
});
