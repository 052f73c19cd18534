import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildSaslConfig, interBrokerCredentials, isListenerSaslKey, SaslConfigError } from '../../../../src/security/sasl/sasl-config.js';

const PLAIN_JAAS = 'org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="pw" user_admin="pw";';
const SCRAM_JAAS = 'org.apache.kafka.common.security.scram.ScramLoginModule required username="admin" password="scram-pw";';

function build(settings: Record<string, string>) {
  return buildSaslConfig((k) => settings[k], ['SASL_PLAINTEXT']);
}

test("GSSAPI, Kafka's default, is not served: alone it is a configuration error, beside others a warning", () => {
  assert.throws(
    () => build({}),
    (err: unknown) => err instanceof SaslConfigError && err.key === 'sasl.enabled.mechanisms' && /does not serve GSSAPI/.test(err.message),
  );
  const config = build({ 'sasl.enabled.mechanisms': 'GSSAPI,PLAIN', 'listener.name.sasl_plaintext.plain.sasl.jaas.config': PLAIN_JAAS });
  assert.deepEqual(config.listeners.get('SASL_PLAINTEXT')!.mechanisms, ['PLAIN']);
  assert.equal(config.warnings.length, 1);
  assert.throws(() => build({ 'sasl.enabled.mechanisms': 'PLAIN,DIGEST-MD5' }), /unknown SASL mechanism DIGEST-MD5/);
});

test('each enabled mechanism needs its listener-and-mechanism-prefixed JAAS entry with the right login module', () => {
  assert.throws(
    () => build({ 'sasl.enabled.mechanisms': 'PLAIN', 'sasl.jaas.config': PLAIN_JAAS }),
    (err: unknown) => err instanceof SaslConfigError && err.key === 'listener.name.sasl_plaintext.plain.sasl.jaas.config',
  );
  assert.throws(
    () => build({ 'sasl.enabled.mechanisms': 'PLAIN', 'listener.name.sasl_plaintext.plain.sasl.jaas.config': SCRAM_JAAS }),
    /needs org.apache.kafka.common.security.plain.PlainLoginModule/,
  );
  assert.throws(
    () => build({ 'sasl.enabled.mechanisms': 'PLAIN', 'listener.name.sasl_plaintext.plain.sasl.jaas.config': 'x required' }),
    /Invalid JAAS config/,
  );
});

test('the listener prefix overrides sasl.enabled.mechanisms; connections.max.reauth.ms: mechanism over listener over broker', () => {
  const config = build({
    'sasl.enabled.mechanisms': 'PLAIN',
    'listener.name.sasl_plaintext.sasl.enabled.mechanisms': 'SCRAM-SHA-512,PLAIN',
    'listener.name.sasl_plaintext.plain.sasl.jaas.config': PLAIN_JAAS,
    'listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config': SCRAM_JAAS,
    'connections.max.reauth.ms': '1000',
    'listener.name.sasl_plaintext.connections.max.reauth.ms': '2000',
    'listener.name.sasl_plaintext.scram-sha-512.connections.max.reauth.ms': '3000',
    'connection.failed.authentication.delay.ms': '0',
  });
  const listener = config.listeners.get('SASL_PLAINTEXT')!;
  assert.deepEqual(listener.mechanisms, ['SCRAM-SHA-512', 'PLAIN']);
  assert.deepEqual(
    [...listener.maxReauthMs],
    [
      ['SCRAM-SHA-512', 3000],
      ['PLAIN', 2000],
    ],
  );
  assert.equal(config.failedAuthenticationDelayMs, 0);
  assert.deepEqual(interBrokerCredentials(config, 'SASL_PLAINTEXT', 'SCRAM-SHA-512'), {
    mechanism: 'SCRAM-SHA-512',
    username: 'admin',
    password: 'scram-pw',
  });
  assert.throws(() => interBrokerCredentials(config, 'SASL_PLAINTEXT', 'GSSAPI'), /not enabled on the inter-broker listener/);
});

test('which listener-prefixed keys the broker reads', () => {
  assert.equal(isListenerSaslKey('listener.name.sasl_plaintext.plain.sasl.jaas.config'), true);
  assert.equal(isListenerSaslKey('listener.name.sasl_plaintext.sasl.enabled.mechanisms'), true);
  assert.equal(isListenerSaslKey('listener.name.sasl_plaintext.connections.max.reauth.ms'), true);
  assert.equal(isListenerSaslKey('listener.name.sasl_plaintext.ssl.keystore.location'), false);
  assert.equal(isListenerSaslKey('sasl.jaas.config'), false);
});
