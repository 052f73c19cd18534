// Client quotas on the wire and from `sluice configs`, against the broker process: every
// response with throttle_time_ms carries the request quota's throttle, Produce the byte quota's;
// the default client-id entity applies to a client id without its own; `sluice configs
// --entity-type users|clients` alters, describes and deletes quotas; a KafkaJS producer under
// producer_byte_rate is held to it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Kafka, logLevel } from 'kafkajs';
import { startBrokerProcess, type BrokerProcess } from '../../helpers/broker-process.js';
import { ok, runCli } from '../../helpers/run-cli.js';
import { wireCall } from '../../helpers/wire-call.js';
import * as M from '@sluice/protocol/messages/index.js';
import { encodeRecordBatch } from '@sluice/protocol/records/index.js';

/** The client id `wireCall` sends. */
const WIRE_CLIENT = 'sluice-admin-test';

async function alterQuota(
  bootstrap: string,
  entity: M.AlterClientQuotasRequestEntityDataInput[],
  key: string,
  value: number | null,
): Promise<M.AlterClientQuotasResponseData> {
  return wireCall(bootstrap, M.AlterClientQuotasRequest, M.AlterClientQuotasResponse, 1, {
    entries: [{ entity, ops: [{ key, value: value ?? 0, remove: value === null }] }],
    validateOnly: false,
  });
}

describe('client quotas on the wire and from sluice configs', () => {
  let broker: BrokerProcess;

  before(async () => {
    broker = await startBrokerProcess();
    const admin = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'wire-quota' }, { topic: 'kafkajs-quota' }] });
    await admin.disconnect();
  });

  after(async () => {
    await broker?.stop();
  });

  test('with a request quota, Metadata and ApiVersions responses carry its throttle; removed, they carry none', async () => {
    const set = await alterQuota(broker.bootstrap, [{ entityType: 'client-id', entityName: WIRE_CLIENT }], 'request_percentage', 0.0001);
    assert.deepEqual(
      set.entries.map((e) => e.errorCode),
      [0],
    );
    const metadata = await wireCall(broker.bootstrap, M.MetadataRequest, M.MetadataResponse, 12, { topics: null });
    assert.ok(
      metadata.throttleTimeMs > 0 && metadata.throttleTimeMs <= 1000,
      `Metadata throttle_time_ms ${metadata.throttleTimeMs} (capped at one window)`,
    );
    const versions = await wireCall(broker.bootstrap, M.ApiVersionsRequest, M.ApiVersionsResponse, 3, {
      clientSoftwareName: 'test',
      clientSoftwareVersion: '1',
    });
    assert.ok(versions.throttleTimeMs > 0);
    await alterQuota(broker.bootstrap, [{ entityType: 'client-id', entityName: WIRE_CLIENT }], 'request_percentage', null);
    const after = await wireCall(broker.bootstrap, M.MetadataRequest, M.MetadataResponse, 12, { topics: null });
    assert.equal(after.throttleTimeMs, 0);
  });

  test("the default client-id's producer_byte_rate throttles a client id without its own, which its own quota overrides", async () => {
    await alterQuota(broker.bootstrap, [{ entityType: 'client-id', entityName: null }], 'producer_byte_rate', 1000);
    const produce = (): Promise<M.ProduceResponseData> =>
      wireCall(broker.bootstrap, M.ProduceRequest, M.ProduceResponse, 9, {
        acks: 1,
        timeoutMs: 5000,
        topicData: [
          {
            name: 'wire-quota',
            partitionData: [
              {
                index: 0,
                records: encodeRecordBatch({ records: [{ key: null, value: Buffer.alloc(30_000), timestamp: BigInt(Date.now()) }] }),
              },
            ],
          },
        ],
      });
    const throttled = await produce();
    assert.equal(throttled.responses[0]!.partitionResponses[0]!.errorCode, 0, 'a throttled produce is still appended');
    // 30 kB against 1000 B/s over the 10 s minimum window: about 20 s.
    assert.ok(throttled.throttleTimeMs > 15_000, `throttle_time_ms ${throttled.throttleTimeMs}`);
    await alterQuota(broker.bootstrap, [{ entityType: 'client-id', entityName: WIRE_CLIENT }], 'producer_byte_rate', 1e9);
    assert.equal((await produce()).throttleTimeMs, 0);
    await alterQuota(broker.bootstrap, [{ entityType: 'client-id', entityName: null }], 'producer_byte_rate', null);
    await alterQuota(broker.bootstrap, [{ entityType: 'client-id', entityName: WIRE_CLIENT }], 'producer_byte_rate', null);
  });

  test('a fetch over consumer_byte_rate is answered empty with the throttle time (KIP-219), and its bytes are not counted', async () => {
    await alterQuota(broker.bootstrap, [{ entityType: 'client-id', entityName: WIRE_CLIENT }], 'consumer_byte_rate', 1000);
    const fetch = (): Promise<M.FetchResponseData> =>
      wireCall(broker.bootstrap, M.FetchRequest, M.FetchResponse, 12, {
        replicaId: -1,
        maxWaitMs: 0,
        minBytes: 1,
        maxBytes: 1 << 20,
        isolationLevel: 0,
        sessionId: 0,
        sessionEpoch: -1,
        topics: [{ topic: 'wire-quota', partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20 }] }],
      });
    // The partition holds two batches of 30 kB: far over 1000 B/s even over the 10 s minimum window.
    for (let i = 0; i < 2; i++) {
      const throttled = await fetch();
      assert.deepEqual(throttled.responses, []);
      assert.equal(throttled.errorCode, 0);
      assert.ok(throttled.throttleTimeMs > 15_000, `throttle_time_ms ${throttled.throttleTimeMs}`);
      // Unrecorded: the second throttle is no longer than the first would be with twice the bytes.
      assert.ok(throttled.throttleTimeMs < 40_000, `throttle_time_ms ${throttled.throttleTimeMs}`);
    }
    await alterQuota(broker.bootstrap, [{ entityType: 'client-id', entityName: WIRE_CLIENT }], 'consumer_byte_rate', null);
    const free = await fetch();
    assert.equal(free.throttleTimeMs, 0);
    assert.equal(free.responses[0]!.partitions[0]!.partitionIndex, 0);
  });

  test('sluice configs alters, describes and deletes the quotas of users and client ids', async () => {
    const cli = (...args: string[]) => runCli(['configs', '--bootstrap-server', broker.bootstrap, ...args]);
    assert.equal(
      ok(
        await cli(
          '--entity-type',
          'users',
          '--entity-name',
          'carol',
          '--alter',
          '--add-config',
          'producer_byte_rate=1024,consumer_byte_rate=2048',
        ),
        'alter user',
      ),
      'Completed updating config for user carol.\n',
    );
    assert.equal(
      ok(
        await cli('--entity-type', 'clients', '--entity-default', '--alter', '--add-config', 'request_percentage=25.5'),
        'alter default client',
      ),
      'Completed updating default config for clients in the cluster.\n',
    );
    const carol = ok(await cli('--entity-type', 'users', '--entity-name', 'carol', '--describe'), 'describe user');
    assert.match(
      carol,
      /^Quota configs for user-principal 'carol' are (producer_byte_rate=1024\.0, consumer_byte_rate=2048\.0|consumer_byte_rate=2048\.0, producer_byte_rate=1024\.0)\n$/,
    );
    assert.equal(
      ok(await cli('--entity-type', 'clients', '--describe'), 'describe clients'),
      'Quota configs for the default client-id are request_percentage=25.5\n',
    );
    ok(await cli('--entity-type', 'users', '--entity-name', 'carol', '--alter', '--delete-config', 'producer_byte_rate'), 'delete');
    assert.equal(
      ok(await cli('--entity-type', 'users', '--entity-name', 'carol', '--describe'), 'describe after delete'),
      "Quota configs for user-principal 'carol' are consumer_byte_rate=2048.0\n",
    );
    const refused = await cli('--entity-type', 'users', '--entity-name', 'carol', '--alter', '--add-config', 'bogus_rate=1');
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /INVALID_REQUEST|Invalid configuration key bogus_rate/);
    ok(await cli('--entity-type', 'clients', '--entity-default', '--alter', '--delete-config', 'request_percentage'), 'cleanup');
  });

  test('a KafkaJS producer under producer_byte_rate is held to it', async () => {
    const quota = 100_000;
    await alterQuota(broker.bootstrap, [{ entityType: 'client-id', entityName: 'kafkajs-rate' }], 'producer_byte_rate', quota);
    const producer = new Kafka({ brokers: [broker.bootstrap], clientId: 'kafkajs-rate', logLevel: logLevel.NOTHING }).producer();
    await producer.connect();
    const value = Buffer.alloc(1000, 1);
    let bytes = 0;
    const started = Date.now();
    // 11 s: Kafka measures over at least 10 windows of 1 s, so shorter runs may get more.
    while (Date.now() - started < 11_000) {
      await producer.send({ topic: 'kafkajs-quota', acks: 1, messages: Array.from({ length: 16 }, () => ({ value })) });
      bytes += 16 * value.length;
    }
    const rate = bytes / ((Date.now() - started) / 1000);
    await producer.disconnect();
    console.log(
      `# KafkaJS producer: ${Math.round(rate)} B/s under a quota of ${quota} B/s (${((Math.abs(rate - quota) / quota) * 100).toFixed(1)}% off)`,
    );
    assert.ok(Math.abs(rate - quota) / quota <= 0.1, `KafkaJS produced ${rate} B/s`);
  });
});
