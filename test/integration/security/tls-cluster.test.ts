// A 3-broker ZooKeeper cluster whose inter-broker listener is SSL with client certificates
// required: the controller's requests, replica fetches and acks=all produce all go over TLS. The
// PLAINTEXT listener advertises an address nobody can reach (127.0.0.2, where nothing listens),
// so a broker dialling it instead of the SSL listener would stall replication; clients use the
// SSL listener with kcat, whose metadata names the SSL endpoints.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { CreateTopicsRequest, CreateTopicsResponse, type MetadataResponseData } from '@sluice/protocol/messages/index.js';
import { startCluster, type TestCluster } from '../../helpers/cluster.js';
import { freePort, kcat } from '../../helpers/interop.js';
import { kcatSkip, zooKeeperSkip } from '../../helpers/requirements.js';
import { pemListenerKeys, testTlsFiles } from '../../helpers/tls-files.js';
import { wireCall } from '../../helpers/wire-call.js';

const TOPIC = 'tls-replicated';

describe('a cluster with an SSL inter-broker listener', { skip: zooKeeperSkip() ?? kcatSkip() }, () => {
  let cluster: TestCluster;
  const internal = new Map<number, number>();
  const f = testTlsFiles();
  const kcatSsl = [
    '-X',
    'security.protocol=SSL',
    '-X',
    `ssl.ca.location=${f.caCert}`,
    '-X',
    `ssl.certificate.location=${f.clientCert}`,
    '-X',
    `ssl.key.location=${f.clientKey}`,
  ];

  before(async () => {
    const plain = new Map<number, number>();
    for (const id of [1, 2, 3]) {
      plain.set(id, await freePort());
      internal.set(id, await freePort());
    }
    cluster = await startCluster(
      3,
      {
        'auto.create.topics.enable': 'false',
        'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,INTERNAL:SSL',
        'inter.broker.listener.name': 'INTERNAL',
        ...pemListenerKeys({ 'ssl.client.auth': 'required' }),
      },
      (id) => ({
        listeners: `PLAINTEXT://127.0.0.1:${plain.get(id)!},INTERNAL://127.0.0.1:${internal.get(id)!}`,
        'advertised.listeners': `PLAINTEXT://127.0.0.2:${plain.get(id)!}`,
      }),
    );
  });
  after(async () => {
    await cluster?.stop();
  });

  test('the brokers register every listener; each listener answers with its own endpoints', async () => {
    const m = await cluster.metadata(null);
    assert.deepEqual(
      m.brokers.map((b) => `${b.host}:${b.port}`).sort(),
      [1, 2, 3].map((id) => `127.0.0.2:${cluster.brokers[id - 1]!.port}`).sort(),
    );
    const viaSsl = (await kcat(['-b', `127.0.0.1:${internal.get(1)!}`, '-L', ...kcatSsl])).toString();
    const listed = [...viaSsl.matchAll(/broker (\d+) at (\S+)/g)].map((x) => `${x[1]}@${x[2]}`).sort();
    assert.deepEqual(listed, [1, 2, 3].map((id) => `${id}@127.0.0.1:${internal.get(id)!}`).sort());
  });

  test('an RF=3 topic replicates over TLS: acks=all through the SSL listener, read back from every broker', async () => {
    const created = await wireCall(cluster.anyBroker(), CreateTopicsRequest, CreateTopicsResponse, 7, {
      topics: [
        { name: TOPIC, numPartitions: 3, replicationFactor: 3, assignments: [], configs: [{ name: 'min.insync.replicas', value: '3' }] },
      ],
      timeoutMs: 30_000,
      validateOnly: false,
    });
    assert.equal(created.topics[0]!.errorCode, ErrorCode.NONE);
    const replicated = (m: MetadataResponseData): boolean => {
      const ps = m.topics.find((t) => t.name === TOPIC)?.partitions ?? [];
      return ps.length === 3 && ps.every((p) => p.errorCode === ErrorCode.NONE && p.isrNodes.length === 3);
    };
    for (const id of [1, 2, 3]) await cluster.waitFor(`broker ${id} to see ${TOPIC}`, replicated, 30_000, id);
    const lines = Array.from({ length: 300 }, (_, i) => `k${i}:value-${i}`).join('\n') + '\n';
    // min.insync.replicas=3: every record is acknowledged only once both followers fetched it over TLS.
    await kcat(
      ['-b', `127.0.0.1:${internal.get(1)!}`, '-P', '-t', TOPIC, '-K', ':', '-X', 'acks=all', '-X', 'message.timeout.ms=15000', ...kcatSsl],
      lines,
    );
    const read = (await kcat(['-b', `127.0.0.1:${internal.get(2)!}`, '-C', '-t', TOPIC, '-o', 'beginning', '-e', '-f', '%s\n', ...kcatSsl]))
      .toString()
      .trim()
      .split('\n');
    assert.deepEqual(read.sort(), Array.from({ length: 300 }, (_, i) => `value-${i}`).sort());
    const m = await cluster.metadata([TOPIC]);
    for (const p of m.topics[0]!.partitions)
      assert.deepEqual([...p.isrNodes].sort(), [1, 2, 3], `partition ${p.partitionIndex} keeps every replica in sync`);
  });
});
