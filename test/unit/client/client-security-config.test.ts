import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clientSecurity } from '@sluice/client/client-security-config.js';
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { testTlsFiles } from '../../helpers/tls-files.js';

const settings = (entries: Record<string, string>): Map<string, string> => new Map(Object.entries(entries));
const SCRAM_JAAS = 'org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="s3cret";';

test('a --command-config gives the mechanism and the JAAS username and password for SASL_*, TLS for SSL and SASL_SSL', () => {
  assert.deepEqual(clientSecurity(settings({})), {});
  assert.deepEqual(clientSecurity(settings({ 'security.protocol': 'PLAINTEXT' })), {});
  assert.deepEqual(
    clientSecurity(settings({ 'security.protocol': 'SASL_PLAINTEXT', 'sasl.mechanism': 'SCRAM-SHA-512', 'sasl.jaas.config': SCRAM_JAAS })),
    {
      sasl: { mechanism: 'SCRAM-SHA-512', username: 'alice', password: 's3cret' },
    },
  );
  const truststore = { 'ssl.truststore.type': 'PEM', 'ssl.truststore.location': testTlsFiles().caCert };
  const ssl = clientSecurity(settings({ 'security.protocol': 'SSL', ...truststore }));
  assert.equal(ssl.sasl, undefined);
  assert.equal(ssl.tls?.verifyHostname, true);
  const saslSsl = clientSecurity(
    settings({
      'security.protocol': 'sasl_ssl',
      'sasl.mechanism': 'SCRAM-SHA-512',
      'sasl.jaas.config': SCRAM_JAAS,
      'ssl.endpoint.identification.algorithm': '',
      ...truststore,
    }),
  );
  assert.equal(saslSsl.sasl?.username, 'alice');
  assert.equal(saslSsl.tls?.verifyHostname, false);
});

test("what this client cannot do is refused: GSSAPI (Kafka's default mechanism), an unknown protocol, a mismatched login module, no password, an unreadable truststore", () => {
  const refused: Record<string, string>[] = [
    { 'security.protocol': 'SASL_PLAINTEXT', 'sasl.jaas.config': SCRAM_JAAS },
    { 'security.protocol': 'TLS' },
    { 'security.protocol': 'SASL_PLAINTEXT', 'sasl.mechanism': 'PLAIN', 'sasl.jaas.config': SCRAM_JAAS },
    {
      'security.protocol': 'SASL_PLAINTEXT',
      'sasl.mechanism': 'SCRAM-SHA-256',
      'sasl.jaas.config': 'org.apache.kafka.common.security.scram.ScramLoginModule required username="a";',
    },
    { 'security.protocol': 'SASL_PLAINTEXT', 'sasl.mechanism': 'SCRAM-SHA-256' },
    { 'security.protocol': 'SSL', 'ssl.truststore.type': 'PEM', 'ssl.truststore.location': '/nonexistent/ca.pem' },
  ];
  for (const s of refused) assert.throws(() => clientSecurity(settings(s)), KafkaError, JSON.stringify(s));
});
