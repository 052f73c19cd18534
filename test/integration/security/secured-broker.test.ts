// docs/guides/security.md's setup, end to end with real clients: `sluice tls` makes the
// certificates, the broker serves SASL_SSL only, with an authorizer; the admin (a PLAIN user of
// the JAAS entry, a super user) creates SCRAM users and ACLs with `sluice configs` and
// `sluice acls` over SASL_SSL; then each user can do what its ACLs allow and nothing else.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import kafkajs, { type KafkaConfig, type LogEntry } from 'kafkajs';
import { startBrokerProcess, type BrokerProcess } from '../../helpers/broker-process.js';
import { ok, runCli } from '../../helpers/run-cli.js';
import { kcat } from '../../helpers/interop.js';
import { javaSkip, kcatSkip } from '../../helpers/requirements.js';
import { startJavaProgram } from '../groups/group-helpers.js';
import { line } from '../../helpers/sasl-setup.js';

const { Kafka, logLevel } = kafkajs;

/** KafkaJS wraps a broker's refusal (in `originalError`, `cause` or `errors`): its type and message, wherever they are. */
function refusal(err: unknown): string {
  const e = err as { type?: string; message?: string; originalError?: unknown; cause?: unknown; errors?: unknown[] } | null;
  if (e === null || typeof e !== 'object') return String(err);
  return [e.type, e.message, refusal(e.originalError ?? null), refusal(e.cause ?? null), ...(e.errors ?? []).map(refusal)]
    .filter((x) => x !== undefined && x !== 'null')
    .join(' ');
}
const ACL_AUTHORIZER = 'kafka.security.authorizer.AclAuthorizer';
const ADMIN_PASSWORD = 'admin-secret';

describe('a SASL_SSL broker with SCRAM users and ACLs, set up as docs/guides/security.md says', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-secured-'));
  let broker: BrokerProcess;
  let bootstrap: string;
  const adminConfig = join(dir, 'admin.properties');
  const clientConfig = (user: string, password: string): Partial<KafkaConfig> => ({
    ssl: { ca: [readFileSync(join(dir, 'tls', 'ca.crt'), 'utf8')] },
    sasl: { mechanism: 'scram-sha-512', username: user, password },
  });
  const kafka = (user: string, password: string) =>
    new Kafka({
      brokers: [bootstrap],
      clientId: `secured-${user}`,
      logLevel: logLevel.NOTHING,
      retry: { retries: 0 },
      ...clientConfig(user, password),
    });

  before(async () => {
    ok(await runCli(['tls', '--dir', join(dir, 'tls')]), 'sluice tls');
    broker = await startBrokerProcess({
      listeners: 'SASL_SSL://127.0.0.1:0',
      'security.inter.broker.protocol': 'SASL_SSL',
      'ssl.keystore.type': 'PEM',
      'ssl.keystore.location': join(dir, 'tls', 'broker.pem'),
      'sasl.enabled.mechanisms': 'PLAIN,SCRAM-SHA-256,SCRAM-SHA-512',
      'listener.name.sasl_ssl.plain.sasl.jaas.config': `org.apache.kafka.common.security.plain.PlainLoginModule required user_admin="${ADMIN_PASSWORD}";`,
      'listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config': 'org.apache.kafka.common.security.scram.ScramLoginModule required;',
      'listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config': 'org.apache.kafka.common.security.scram.ScramLoginModule required;',
      'authorizer.class.name': ACL_AUTHORIZER,
      'super.users': 'User:admin',
      'auto.create.topics.enable': 'false',
      'group.initial.rebalance.delay.ms': '0',
    });
    bootstrap = broker.listeners.get('SASL_SSL')!;
    writeFileSync(
      adminConfig,
      [
        'security.protocol=SASL_SSL',
        'sasl.mechanism=PLAIN',
        `sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="${ADMIN_PASSWORD}";`,
        'ssl.truststore.type=PEM',
        `ssl.truststore.location=${join(dir, 'tls', 'ca.crt')}`,
        '',
      ].join('\n'),
    );
    const cli = (args: string[]) => runCli([...args, '--bootstrap-server', bootstrap, '--command-config', adminConfig]);
    for (const [user, password] of [
      ['alice', 'alice-secret'],
      ['bob', 'bob-secret'],
    ]) {
      ok(
        await cli([
          'configs',
          '--alter',
          '--entity-type',
          'users',
          '--entity-name',
          user!,
          '--add-config',
          `SCRAM-SHA-512=[iterations=8192,password=${password}]`,
        ]),
        `create ${user}`,
      );
    }
    ok(
      await cli([
        'configs',
        '--alter',
        '--entity-type',
        'users',
        '--entity-name',
        'carol',
        '--add-config',
        'SCRAM-SHA-256=[password=carol-secret]',
      ]),
      'create carol',
    );
    ok(
      await cli([
        'acls',
        '--add',
        '--allow-principal',
        'User:carol',
        '--operation',
        'All',
        '--topic',
        'java-',
        '--group',
        'sasl-java-',
        '--resource-pattern-type',
        'prefixed',
      ]),
      'carol owns java-*',
    );
    ok(await cli(['topics', '--create', '--topic', 'orders', '--partitions', '1']), 'create orders');
    ok(await cli(['topics', '--create', '--topic', 'payroll', '--partitions', '1']), 'create payroll');
    ok(await cli(['acls', '--add', '--allow-principal', 'User:alice', '--producer', '--topic', 'orders']), 'alice produces');
    ok(
      await cli(['acls', '--add', '--allow-principal', 'User:bob', '--consumer', '--topic', 'orders', '--group', 'billing']),
      'bob consumes',
    );
  });

  after(async () => {
    await broker?.stop();
  });

  test('sluice configs and acls over SASL_SSL show the users and their ACLs', async () => {
    const cli = (args: string[]) => runCli([...args, '--bootstrap-server', bootstrap, '--command-config', adminConfig]);
    assert.match(
      ok(await cli(['configs', '--describe', '--entity-type', 'users', '--entity-name', 'alice']), 'describe alice'),
      /SCRAM-SHA-512=iterations=8192/,
    );
    const acls = ok(await cli(['acls', '--list', '--topic', 'orders']), 'acls --list');
    assert.match(acls, /User:alice.*WRITE|User:alice[\s\S]*Write/i);
    assert.match(acls, /User:bob/);
  });

  test('alice may produce to orders, not read it, and sees only orders in Metadata', async () => {
    const producer = kafka('alice', 'alice-secret').producer();
    await producer.connect();
    try {
      await producer.send({
        topic: 'orders',
        acks: -1,
        messages: [
          { key: 'o1', value: 'ten apples' },
          { key: 'o2', value: 'two pears' },
        ],
      });
      await assert.rejects(producer.send({ topic: 'payroll', acks: -1, messages: [{ value: 'x' }] }), (err) =>
        /TOPIC_AUTHORIZATION_FAILED|Topic authorization failed/.test(refusal(err)),
      );
    } finally {
      await producer.disconnect();
    }
    const admin = kafka('alice', 'alice-secret').admin();
    await admin.connect();
    try {
      assert.deepEqual((await admin.listTopics()).sort(), ['orders']);
    } finally {
      await admin.disconnect();
    }
  });

  test('bob reads orders in group billing; he may not produce, nor use another group', async () => {
    const consumer = kafka('bob', 'bob-secret').consumer({ groupId: 'billing' });
    await consumer.connect();
    const seen: string[] = [];
    try {
      await consumer.subscribe({ topic: 'orders', fromBeginning: true });
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`only ${seen.length} records in 30 s`)), 30_000);
        void consumer.run({
          eachMessage: async ({ message }) => {
            seen.push(message.value!.toString());
            if (seen.length === 2) {
              clearTimeout(timer);
              resolve();
            }
          },
        });
      });
    } finally {
      await consumer.disconnect();
    }
    assert.deepEqual(seen, ['ten apples', 'two pears']);
    const producer = kafka('bob', 'bob-secret').producer();
    await producer.connect();
    try {
      await assert.rejects(producer.send({ topic: 'orders', acks: -1, messages: [{ value: 'x' }] }), (err) =>
        /TOPIC_AUTHORIZATION_FAILED|Topic authorization failed/.test(refusal(err)),
      );
    } finally {
      await producer.disconnect();
    }
    // KafkaJS reports a refused FindCoordinator only as "Failed to find group coordinator"; the broker's code is in its debug log.
    const brokerErrors: string[] = [];
    const logCreator = () => (entry: LogEntry) => {
      const error = (entry.log as { error?: { type?: string } }).error;
      if (error?.type !== undefined) brokerErrors.push(error.type);
    };
    const other = new Kafka({
      brokers: [bootstrap],
      clientId: 'secured-bob',
      logLevel: logLevel.DEBUG,
      logCreator,
      retry: { retries: 0 },
      ...clientConfig('bob', 'bob-secret'),
    }).consumer({ groupId: 'not-billing' });
    await other.connect();
    try {
      const crashed = new Promise<unknown>((resolve) => other.on(other.events.CRASH, (e) => resolve(e.payload.error)));
      await other.subscribe({ topic: 'orders' });
      await other.run({ eachMessage: async () => {} });
      const err = await Promise.race([crashed, sleep(20_000).then(() => null)]);
      assert.match(refusal(err), /group coordinator/);
      assert.ok(brokerErrors.includes('GROUP_AUTHORIZATION_FAILED'), `the broker's answers: ${brokerErrors.join(', ')}`);
    } finally {
      await other.disconnect();
    }
  });

  test(
    'the Java client over SASL_SSL with SCRAM-SHA-256 creates, produces to and consumes its own topic',
    { skip: javaSkip() },
    async () => {
      const truststore = join(dir, 'java-client.properties');
      writeFileSync(truststore, `ssl.truststore.type=PEM\nssl.truststore.location=${join(dir, 'tls', 'ca.crt')}\n`);
      const p = startJavaProgram(
        'test/integration/security/SaslClients.java',
        'SaslClients roundtrip',
        ['roundtrip', bootstrap, 'SASL_SSL', 'SCRAM-SHA-256', 'carol', 'carol-secret', 'java-carol', '20'],
        { 'client.config': truststore },
      );
      await p.succeeded(120_000);
      const r = line(p.json(), 'roundtrip');
      assert.equal(r['produced'], 20);
      assert.deepEqual(
        r['consumed'],
        Array.from({ length: 20 }, (_, i) => `v${i}`),
      );
    },
  );

  test('kcat (librdkafka 2.0.2) over SASL_SSL with PLAIN as the admin', { skip: kcatSkip() }, async () => {
    const auth = [
      '-X',
      'security.protocol=SASL_SSL',
      '-X',
      `ssl.ca.location=${join(dir, 'tls', 'ca.crt')}`,
      '-X',
      'sasl.mechanisms=PLAIN',
      '-X',
      'sasl.username=admin',
      '-X',
      `sasl.password=${ADMIN_PASSWORD}`,
    ];
    await kcat(['-b', bootstrap, ...auth, '-P', '-t', 'payroll', '-K:'], 'k1:march\nk2:april\n');
    const read = await kcat(['-b', bootstrap, ...auth, '-C', '-t', 'payroll', '-o', 'beginning', '-e', '-f', '%k=%s\n']);
    assert.deepEqual(read.toString().trim().split('\n'), ['k1=march', 'k2=april']);
  });

  test('a wrong password or a plaintext client gets nowhere, and the broker serves on', async () => {
    const wrong = kafka('alice', 'not-her-password').admin();
    await assert.rejects(wrong.connect(), (err: { name?: string; message?: string }) =>
      /SASL|Authentication/i.test(`${err.name} ${err.message}`),
    );
    const plaintext = new Kafka({
      brokers: [bootstrap],
      logLevel: logLevel.NOTHING,
      retry: { retries: 0 },
      connectionTimeout: 2000,
      requestTimeout: 2000,
    }).admin();
    await assert.rejects(plaintext.connect());
    const admin = kafka('alice', 'alice-secret').admin();
    await admin.connect();
    assert.deepEqual(await admin.listTopics(), ['orders']);
    await admin.disconnect();
  });
});
