// KIP-368 against the broker process with a short connections.max.reauth.ms: the Java producer
// re-authenticates by itself and keeps producing across several sessions; a client that does not
// re-authenticate (this repository's own connection) is closed on its first request after its
// session expired.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { Kafka, logLevel } from 'kafkajs';
import { KafkaConnection } from '@sluice/client/connection.js';
import { startBrokerProcess, type BrokerProcess } from '../../helpers/broker-process.js';
import { javaSkip } from '../../helpers/requirements.js';
import {
  brokerCount,
  counterValue,
  createScramUsers,
  hostPort,
  line,
  runSaslJava,
  saslBrokerSettings,
  SCRAM_USERS,
  type SaslProtocol,
} from '../../helpers/sasl-setup.js';

const PROTOCOLS: readonly SaslProtocol[] = ['SASL_PLAINTEXT'];
const SESSION_MS = 1500;

for (const protocol of PROTOCOLS) {
  describe(`SASL re-authentication over ${protocol}`, () => {
    let broker: BrokerProcess;

    before(async () => {
      broker = await startBrokerProcess(
        saslBrokerSettings(protocol, { 'connections.max.reauth.ms': String(SESSION_MS), 'metrics.listener': 'http://127.0.0.1:0' }),
      );
      await createScramUsers(broker.bootstrap);
    });

    after(async () => {
      await broker?.stop();
    });

    test('the Java producer keeps producing across several re-authentications', { skip: javaSkip() }, async () => {
      const lines = await runSaslJava(
        'reauth',
        broker.bootstrap,
        protocol,
        'SCRAM-SHA-512',
        SCRAM_USERS['SCRAM-SHA-512'],
        'reauth',
        '5000',
      );
      const result = line(lines, 'reauth');
      assert.deepEqual(result['errors'], []);
      assert.ok((result['acked'] as number) >= 20, `acked ${String(result['acked'])}`);
      assert.ok((result['reauthentications'] as number) >= 2, `re-authenticated ${String(result['reauthentications'])} times`);
    });

    test('KafkaJS re-authenticates before its sessions end and keeps producing', async () => {
      const { username, password } = SCRAM_USERS['SCRAM-SHA-256'];
      // KafkaJS re-authenticates this long before the session's end (its default, 10 s, exceeds the session).
      const kafka = new Kafka({
        brokers: [broker.bootstrap],
        sasl: { mechanism: 'scram-sha-256', username, password },
        reauthenticationThreshold: 500,
        logLevel: logLevel.NOTHING,
      });
      const producer = kafka.producer();
      const reauthenticated = await counterValue(broker, 'sluice_authentications_total', 'result="success"', 'reauthentication="true"');
      const killed = await counterValue(broker, 'sluice_expired_connections_killed_total');
      await producer.connect();
      try {
        const deadline = Date.now() + 4000;
        let acked = 0;
        while (Date.now() < deadline) {
          await producer.send({ topic: 'reauth-kafkajs', messages: [{ value: String(acked) }] });
          acked++;
          // Fixed on purpose: a producer paced over several session lifetimes, so that it must re-authenticate.
          await sleep(200);
        }
        assert.ok(acked >= 15, `acked ${acked}`);
        assert.ok(
          (await counterValue(broker, 'sluice_authentications_total', 'result="success"', 'reauthentication="true"')) >=
            reauthenticated + 2,
        );
        assert.equal(await counterValue(broker, 'sluice_expired_connections_killed_total'), killed);
      } finally {
        await producer.disconnect();
      }
    });

    test('a client that does not re-authenticate is closed on its first request after the session expired', async () => {
      const connection = await KafkaConnection.connect({
        ...hostPort(broker.bootstrap),
        sasl: { mechanism: 'SCRAM-SHA-256', ...SCRAM_USERS['SCRAM-SHA-256'] },
      });
      assert.equal(await brokerCount(connection), 1);
      // Fixed on purpose: the session must expire; its lifetime is what is tested.
      await sleep(SESSION_MS + 200);
      await assert.rejects(brokerCount(connection), /closed/);
    });
  });
}
