// Unmodified clients over a SASL listener of the broker process, with PLAIN, SCRAM-SHA-256 and
// SCRAM-SHA-512: the Java client (AdminClient altering and describing SCRAM users, producer and
// consumer), librdkafka (kcat for PLAIN, @confluentinc/kafka-javascript for all three) and
// KafkaJS. A wrong password or an unknown user fails with the client's authentication error;
// the broker counts the failures and goes on serving. The SCRAM users are created first over
// PLAIN through this repository's own client (AlterUserScramCredentials). The protocol is a
// parameter: SASL_SSL joins once TLS listeners exist.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel, type SASLOptions } from 'kafkajs';
import { KafkaConnection } from '@sluice/client/connection.js';
import { startBrokerProcess, type BrokerProcess } from '../../helpers/broker-process.js';
import { confluentKafka, CONFLUENT_JS_SKIP } from '../../helpers/confluent-js.js';
import { runProcess } from '../../helpers/interop.js';
import { failsWith, ok, runCli } from '../../helpers/run-cli.js';
import { javaSkip, kcatSkip } from '../../helpers/requirements.js';
import {
  ADMIN,
  brokerCount,
  counterValue,
  createScramUsers,
  hostPort,
  line,
  PLAIN_USER,
  runSaslJava,
  saslBrokerSettings,
  SCRAM_USERS,
  userFor,
  type Mechanism,
  type SaslProtocol,
} from '../../helpers/sasl-setup.js';

const MECHANISMS: readonly Mechanism[] = ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'];
const PROTOCOLS: readonly SaslProtocol[] = ['SASL_PLAINTEXT'];

function kafkajsSasl(mechanism: Mechanism, password = userFor(mechanism).password): SASLOptions {
  const { username } = userFor(mechanism);
  if (mechanism === 'PLAIN') return { mechanism: 'plain', username, password };
  return mechanism === 'SCRAM-SHA-256'
    ? { mechanism: 'scram-sha-256', username, password }
    : { mechanism: 'scram-sha-512', username, password };
}

for (const protocol of PROTOCOLS) {
  describe(`SASL clients over ${protocol}`, () => {
    let broker: BrokerProcess;

    before(async () => {
      broker = await startBrokerProcess(saslBrokerSettings(protocol, { 'metrics.listener': 'http://127.0.0.1:0' }));
      await createScramUsers(broker.bootstrap);
    });

    after(async () => {
      await broker?.stop();
    });

    test("Java AdminClient over PLAIN alters and describes SCRAM credentials with Kafka's errors", { skip: javaSkip() }, async () => {
      const lines = await runSaslJava('scram-admin', broker.bootstrap, protocol, 'PLAIN', ADMIN, 'java-user', 'java-secret');
      assert.deepEqual(line(lines, 'described')['credentials'], ['java-user-512:SCRAM_SHA_512:4096', 'java-user:SCRAM_SHA_256:8192']);
      assert.equal(line(lines, 'nobody')['error'], 'ResourceNotFoundException');
      assert.deepEqual(
        [line(lines, 'weak')['error'], line(lines, 'weak')['message']],
        ['UnacceptableCredentialException', 'Too few iterations'],
      );
    });

    for (const mechanism of MECHANISMS) {
      test(`Java producer and consumer with ${mechanism}`, { skip: javaSkip() }, async () => {
        const topic = `java-${mechanism.toLowerCase()}`;
        const lines = await runSaslJava('roundtrip', broker.bootstrap, protocol, mechanism, userFor(mechanism), topic, '5');
        assert.deepEqual(line(lines, 'roundtrip')['consumed'], ['v0', 'v1', 'v2', 'v3', 'v4']);
      });

      test(`KafkaJS with ${mechanism}`, async () => {
        const kafka = new Kafka({ brokers: [broker.bootstrap], sasl: kafkajsSasl(mechanism), logLevel: logLevel.NOTHING });
        const topic = `kafkajs-${mechanism.toLowerCase()}`;
        const admin = kafka.admin();
        const producer = kafka.producer();
        await admin.connect();
        await producer.connect();
        try {
          await admin.createTopics({ topics: [{ topic, numPartitions: 1 }] });
          await producer.send({ topic, messages: [{ value: 'a' }, { value: 'b' }] });
          assert.deepEqual(
            (await admin.fetchTopicOffsets(topic)).map((p) => p.high),
            ['2'],
          );
        } finally {
          await producer.disconnect();
          await admin.disconnect();
        }
      });

      test(`librdkafka (@confluentinc/kafka-javascript) with ${mechanism}`, { skip: CONFLUENT_JS_SKIP }, async () => {
        const { username, password } = userFor(mechanism);
        const producer = confluentKafka(broker.bootstrap, { mechanism: mechanism.toLowerCase(), username, password }).producer({
          kafkaJS: { acks: -1 },
        });
        await producer.connect();
        try {
          const sent = await producer.send({ topic: `ckjs-${mechanism.toLowerCase()}`, messages: [{ value: 'x' }] });
          assert.deepEqual(
            sent.map((s) => s.errorCode),
            [0],
          );
        } finally {
          await producer.disconnect();
        }
      });
    }

    test('kcat with PLAIN produces and consumes; a wrong password is its authentication error', { skip: kcatSkip() }, async () => {
      const auth = (password: string): string[] => [
        '-X',
        `security.protocol=${protocol}`,
        '-X',
        'sasl.mechanisms=PLAIN',
        '-X',
        `sasl.username=${PLAIN_USER.username}`,
        '-X',
        `sasl.password=${password}`,
      ];
      const produced = await runProcess(
        'kcat',
        ['-b', broker.bootstrap, ...auth(PLAIN_USER.password), '-P', '-t', 'kcat-plain'],
        'one\ntwo\n',
        30_000,
      );
      assert.equal(produced.code, 0, produced.stderr);
      const consumed = await runProcess(
        'kcat',
        ['-b', broker.bootstrap, ...auth(PLAIN_USER.password), '-C', '-t', 'kcat-plain', '-e', '-q'],
        '',
        30_000,
      );
      assert.deepEqual(consumed.stdout.toString().trim().split('\n'), ['one', 'two']);
      const denied = await runProcess('kcat', ['-b', broker.bootstrap, ...auth('wrong'), '-L', '-m', '5'], '', 30_000);
      assert.notEqual(denied.code, 0);
      assert.match(denied.stderr, /SASL authentication error: Authentication failed: Invalid username or password/);
    });

    test("wrong passwords and unknown users fail with the clients' authentication errors; the broker counts them and serves on", async (t) => {
      const before = await counterValue(broker, 'sluice_authentications_total', 'result="failure"');
      const wrongPassword = new Kafka({
        brokers: [broker.bootstrap],
        sasl: kafkajsSasl('SCRAM-SHA-512', 'wrong'),
        logLevel: logLevel.NOTHING,
        retry: { retries: 0 },
      }).admin();
      await assert.rejects(
        wrongPassword.connect(),
        (err: Error) =>
          err.name === 'KafkaJSSASLAuthenticationError' && /invalid credentials with SASL mechanism SCRAM-SHA-512/.test(err.message),
      );
      await wrongPassword.disconnect();
      await t.test('Java: unknown SCRAM user, PLAIN wrong password', { skip: javaSkip() }, async () => {
        for (const [mechanism, user] of [
          ['SCRAM-SHA-256', { username: 'nobody', password: 'x' }],
          ['PLAIN', { username: PLAIN_USER.username, password: 'wrong' }],
        ] as const) {
          const lines = await runSaslJava('denied', broker.bootstrap, protocol, mechanism, user, 'denied');
          for (const client of ['admin', 'producer'])
            assert.equal(line(lines, client)['error'], 'SaslAuthenticationException', `${mechanism} ${client}`);
          const expected =
            mechanism === 'PLAIN'
              ? 'Authentication failed: Invalid username or password'
              : 'Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-256';
          assert.equal(line(lines, 'admin')['message'], expected);
        }
      });
      assert.ok((await counterValue(broker, 'sluice_authentications_total', 'result="failure"')) > before);
      const connection = await KafkaConnection.connect({
        ...hostPort(broker.bootstrap),
        sasl: { mechanism: 'SCRAM-SHA-256', ...SCRAM_USERS['SCRAM-SHA-256'] },
      });
      try {
        assert.equal(await brokerCount(connection), 1);
      } finally {
        connection.close();
      }
    });

    test('sluice configs --entity-type users adds, describes and deletes SCRAM credentials; sluice tools log in with --command-config', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'sluice-sasl-cli-'));
      const commandConfig = (file: string, mechanism: Mechanism, module: string, username: string, password: string): string => {
        const path = join(dir, file);
        writeFileSync(
          path,
          `security.protocol=${protocol}\nsasl.mechanism=${mechanism}\nsasl.jaas.config=org.apache.kafka.common.security.${module} required username="${username}" password="${password}";\n`,
        );
        return path;
      };
      try {
        const admin = [
          '--bootstrap-server',
          broker.bootstrap,
          '--command-config',
          commandConfig('admin.properties', 'PLAIN', 'plain.PlainLoginModule', ADMIN.username, ADMIN.password),
        ];
        const users = [...admin, '--entity-type', 'users', '--entity-name', 'cli-user'];
        // As with Kafka 4.x's kafka-configs.sh, one user is altered once per request: two mechanisms at once are DUPLICATE_RESOURCE.
        failsWith(
          await runCli([
            'configs',
            ...users,
            '--alter',
            '--add-config',
            'SCRAM-SHA-512=[iterations=8192,password=cli-secret],SCRAM-SHA-256=[password=cli-secret]',
          ]),
          'DUPLICATE_RESOURCE',
        );
        assert.equal(
          ok(await runCli(['configs', ...users, '--alter', '--add-config', 'SCRAM-SHA-512=[iterations=8192,password=cli-secret]']), 'add'),
          'Completed updating config for user cli-user.\n',
        );
        ok(await runCli(['configs', ...users, '--alter', '--add-config', 'SCRAM-SHA-256=[password=cli-secret]']), 'add SCRAM-SHA-256');
        assert.equal(
          ok(await runCli(['configs', ...users, '--describe']), 'describe'),
          "SCRAM credential configs for user-principal 'cli-user' are SCRAM-SHA-256=iterations=4096, SCRAM-SHA-512=iterations=8192\n",
        );
        const asCliUser = [
          '--bootstrap-server',
          broker.bootstrap,
          '--command-config',
          commandConfig('cli-user.properties', 'SCRAM-SHA-512', 'scram.ScramLoginModule', 'cli-user', 'cli-secret'),
        ];
        ok(await runCli(['topics', ...asCliUser, '--list']), 'topics as cli-user');
        ok(await runCli(['configs', ...users, '--alter', '--delete-config', 'SCRAM-SHA-512']), 'delete');
        assert.equal(
          ok(await runCli(['configs', ...users, '--describe']), 'describe after delete'),
          "SCRAM credential configs for user-principal 'cli-user' are SCRAM-SHA-256=iterations=4096\n",
        );
        failsWith(await runCli(['topics', ...asCliUser, '--list']), 'SASL_AUTHENTICATION_FAILED');
        failsWith(
          await runCli(['configs', ...users, '--alter', '--add-config', 'SCRAM-SHA-256=[iterations=100,password=x]']),
          'UNACCEPTABLE_CREDENTIAL',
        );
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    test('a request other than ApiVersions or SaslHandshake before authentication closes the connection', async () => {
      const connection = await KafkaConnection.connect(hostPort(broker.bootstrap));
      await assert.rejects(brokerCount(connection), /closed/);
      assert.equal(connection.isClosed, true);
    });
  });
}
