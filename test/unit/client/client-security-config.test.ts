import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clientSaslCredentials } from '../../../src/client/client-security-config.js';
import { KafkaError } from '../../../src/common/kafka-error.js';

const settings = (entries: Record<string, string>): Map<string, string> => new Map(Object.entries(entries));
const SCRAM_JAAS = 'org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="s3cret";';

test('a --command-config with security.protocol SASL_PLAINTEXT gives the mechanism and the JAAS username and password', () => {
  assert.equal(clientSaslCredentials(settings({})), undefined);
  assert.equal(clientSaslCredentials(settings({ 'security.protocol': 'PLAINTEXT' })), undefined);
  assert.deepEqual(clientSaslCredentials(settings({ 'security.protocol': 'SASL_PLAINTEXT', 'sasl.mechanism': 'SCRAM-SHA-512', 'sasl.jaas.config': SCRAM_JAAS })), {
    mechanism: 'SCRAM-SHA-512',
    username: 'alice',
    password: 's3cret',
  });
});

test("what this client cannot do is refused: GSSAPI (Kafka's default mechanism), TLS, a mismatched login module, no password", () => {
  const refused: Record<string, string>[] = [
    { 'security.protocol': 'SASL_PLAINTEXT', 'sasl.jaas.config': SCRAM_JAAS },
    { 'security.protocol': 'SASL_SSL', 'sasl.mechanism': 'SCRAM-SHA-512', 'sasl.jaas.config': SCRAM_JAAS },
    { 'security.protocol': 'SASL_PLAINTEXT', 'sasl.mechanism': 'PLAIN', 'sasl.jaas.config': SCRAM_JAAS },
    { 'security.protocol': 'SASL_PLAINTEXT', 'sasl.mechanism': 'SCRAM-SHA-256', 'sasl.jaas.config': 'org.apache.kafka.common.security.scram.ScramLoginModule required username="a";' },
    { 'security.protocol': 'SASL_PLAINTEXT', 'sasl.mechanism': 'SCRAM-SHA-256' },
  ];
  for (const s of refused) assert.throws(() => clientSaslCredentials(settings(s)), KafkaError, JSON.stringify(s));
});
