import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { buildConfig, ConfigError } from '../../../src/broker/config.js';
import { pemListenerKeys, testTlsFiles, TLS_PASSWORD } from '../../helpers/tls-files.js';

const build = (s: Record<string, string>) => buildConfig(new Map(Object.entries(s))).config;

function refused(s: Record<string, string>, key: string, message?: RegExp): void {
  assert.throws(
    () => build(s),
    (e: unknown) => e instanceof ConfigError && e.key === key && (message === undefined || message.test(e.message)),
    `${JSON.stringify(s)} should be refused naming ${key}`,
  );
}

test('several listeners, each with its security protocol from the default map and its own advertised address', () => {
  const c = build({
    listeners: 'PLAINTEXT://127.0.0.1:9092,SSL://0.0.0.0:9093,internal://127.0.0.1:9094',
    'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,SSL:SSL,INTERNAL:PLAINTEXT',
    'advertised.listeners': 'SSL://kafka.example:19093',
    ...pemListenerKeys(),
  });
  assert.deepEqual(
    c.listeners.map((l) => [l.name, l.securityProtocol, l.host, l.port, l.advertisedHost, l.advertisedPort, l.tls !== null]),
    [
      ['PLAINTEXT', 'PLAINTEXT', '127.0.0.1', 9092, '127.0.0.1', 9092, false],
      ['SSL', 'SSL', '0.0.0.0', 9093, 'kafka.example', 19093, true],
      ['INTERNAL', 'PLAINTEXT', '127.0.0.1', 9094, '127.0.0.1', 9094, false],
    ],
  );
  assert.equal(c.interBrokerListener.name, 'PLAINTEXT');
});

test("Kafka's listener validation: known protocol, unique names and ports, advertised names among listeners, no 0.0.0.0 advertised", () => {
  refused({ listeners: 'FOO://127.0.0.1:1' }, 'listener.security.protocol.map', /no security protocol is defined for listener FOO/);
  refused({ listeners: 'PLAINTEXT://127.0.0.1:1,plaintext://127.0.0.1:2' }, 'listeners', /different name/);
  refused({ listeners: 'PLAINTEXT://127.0.0.1:1,SSL://127.0.0.1:1', ...pemListenerKeys() }, 'listeners', /different port/);
  refused({ listeners: 'PLAINTEXT://127.0.0.1:1', 'advertised.listeners': 'SSL://h:2' }, 'advertised.listeners', /SSL is not a listener/);
  refused({ listeners: 'PLAINTEXT://0.0.0.0:1' }, 'advertised.listeners', /0\.0\.0\.0/);
  refused({ listeners: 'PLAINTEXT://127.0.0.1:1', 'advertised.listeners': 'PLAINTEXT://0.0.0.0:1' }, 'advertised.listeners');
  refused({ listeners: 'PLAINTEXT://127.0.0.1:1', 'listener.security.protocol.map': 'PLAINTEXT:TLS' }, 'listener.security.protocol.map');
  refused({ listeners: 'PLAINTEXT:127.0.0.1:1' }, 'listeners');
  // A SASL listener needs a mechanism this broker serves: Kafka's default (GSSAPI) is not one.
  refused({ listeners: 'PLAINTEXT://127.0.0.1:1,SASL_PLAINTEXT://127.0.0.1:2' }, 'sasl.enabled.mechanisms');
  // Port 0 ("pick one") may repeat.
  assert.equal(build({ listeners: 'PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0', ...pemListenerKeys() }).listeners.length, 2);
});

test('the inter-broker listener: inter.broker.listener.name or security.inter.broker.protocol, never both, and it must be a listener', () => {
  const ssl = { listeners: 'PLAINTEXT://127.0.0.1:1,SSL://127.0.0.1:2', ...pemListenerKeys() };
  assert.equal(build({ ...ssl, 'inter.broker.listener.name': 'ssl' }).interBrokerListener.name, 'SSL');
  assert.equal(build({ ...ssl, 'security.inter.broker.protocol': 'SSL' }).interBrokerListener.name, 'SSL');
  refused(
    { ...ssl, 'inter.broker.listener.name': 'SSL', 'security.inter.broker.protocol': 'SSL' },
    'inter.broker.listener.name',
    /only one/,
  );
  refused(
    { ...ssl, 'inter.broker.listener.name': 'OTHER' },
    'inter.broker.listener.name',
    /valid options based on the configured listeners are PLAINTEXT,SSL/,
  );
  refused({ listeners: 'SSL://127.0.0.1:2', ...pemListenerKeys() }, 'security.inter.broker.protocol');
});

test('listener.name.<listener>.ssl.* keys override the unprefixed ones for that listener only', () => {
  const f = testTlsFiles();
  const c = build({
    listeners: 'PLAINTEXT://127.0.0.1:1,SSL://127.0.0.1:2,CLIENTS://127.0.0.1:3',
    'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,SSL:SSL,CLIENTS:SSL',
    ...pemListenerKeys(),
    'listener.name.clients.ssl.client.auth': 'required',
    'listener.name.clients.ssl.keystore.type': 'PKCS12',
    'listener.name.clients.ssl.keystore.location': f.brokerP12,
    'listener.name.clients.ssl.keystore.password': TLS_PASSWORD,
  });
  assert.deepEqual(
    c.listeners.map((l) => l.tls?.clientAuth ?? null),
    [null, 'none', 'required'],
  );
  assert.equal(c.listeners[2]!.ssl.get('ssl.keystore.type'), 'PKCS12');
  assert.equal(c.listeners[1]!.ssl.get('ssl.keystore.type'), 'PEM');
  refused(
    { listeners: 'PLAINTEXT://127.0.0.1:1', 'listener.name.plaintext.ssl.client.auth': 'maybe' },
    'listener.name.plaintext.ssl.client.auth',
  );
  refused({ listeners: 'PLAINTEXT://127.0.0.1:1', 'listener.name.other.ssl.client.auth': 'none' }, 'listener.name.other');
});

test('keystores: PEM file, inline PEM, encrypted PEM key, PKCS12, PKCS12 under the default type JKS; JKS itself refused with the keytool conversion', () => {
  const f = testTlsFiles();
  const ssl = (keys: Record<string, string>) =>
    build({ listeners: 'PLAINTEXT://127.0.0.1:1,SSL://127.0.0.1:2', ...keys }).listeners[1]!.tls;
  assert.ok(ssl({ 'ssl.keystore.type': 'PEM', 'ssl.keystore.location': f.brokerPem }));
  assert.ok(ssl({ 'ssl.keystore.type': 'PEM', 'ssl.keystore.location': f.brokerEncryptedPem, 'ssl.key.password': TLS_PASSWORD }));
  assert.ok(ssl({ 'ssl.keystore.type': 'PKCS12', 'ssl.keystore.location': f.brokerP12, 'ssl.keystore.password': TLS_PASSWORD }));
  assert.ok(ssl({ 'ssl.keystore.location': f.brokerP12, 'ssl.keystore.password': TLS_PASSWORD }));
  const text = (path: string): string => readFileSync(path, 'utf8');
  assert.ok(
    ssl({ 'ssl.keystore.type': 'PEM', 'ssl.keystore.key': text(f.clientKey), 'ssl.keystore.certificate.chain': text(f.clientCert) }),
  );
  const base = { listeners: 'PLAINTEXT://127.0.0.1:1,SSL://127.0.0.1:2' };
  refused({ ...base }, 'ssl.keystore.location', /needs a keystore/);
  refused({ ...base, 'ssl.keystore.location': f.brokerPem }, 'ssl.keystore.location', /looks like PEM: set ssl.keystore.type=PEM/);
  refused(
    { ...base, 'ssl.keystore.type': 'PKCS12', 'ssl.keystore.location': f.brokerP12, 'ssl.keystore.password': 'wrong' },
    'ssl.keystore.location',
  );
  refused(
    { ...base, 'ssl.keystore.type': 'PEM', 'ssl.keystore.location': f.brokerEncryptedPem, 'ssl.key.password': 'wrong' },
    'ssl.keystore.location',
  );
  refused({ ...base, 'ssl.keystore.type': 'PEM', 'ssl.keystore.location': '/nonexistent/broker.pem' }, 'ssl.keystore.location', /ENOENT/);
  refused({ ...base, 'ssl.keystore.type': 'PEM', 'ssl.keystore.key': text(f.clientKey) }, 'ssl.keystore.certificate.chain');
  const jks = `${f.caCert}.jks`;
  writeFileSync(jks, Buffer.from([0xfe, 0xed, 0xfe, 0xed, 0, 0, 0, 2]));
  refused({ ...base, 'ssl.keystore.location': jks }, 'ssl.keystore.type', /JKS keystore.*keytool -importkeystore/);
  refused(
    { ...base, 'ssl.keystore.type': 'PEM', 'ssl.keystore.location': f.brokerPem, 'ssl.enabled.protocols': 'TLSv1.1' },
    'ssl.enabled.protocols',
  );
  refused(
    { ...base, 'ssl.keystore.type': 'PEM', 'ssl.keystore.location': f.brokerPem, 'ssl.principal.mapping.rules': 'RULE:^CN=(.*)$' },
    'ssl.principal.mapping.rules',
  );
  refused(
    { ...base, 'ssl.keystore.type': 'PEM', 'ssl.keystore.location': f.brokerPem, 'ssl.cipher.suites': 'TLS_MADE_UP_SUITE' },
    'ssl.cipher.suites',
  );
});

test('a bad TLS key of one listener names the prefixed key and the listener', () => {
  refused(
    {
      listeners: 'PLAINTEXT://127.0.0.1:1,SSL://127.0.0.1:2',
      ...pemListenerKeys(),
      'listener.name.ssl.ssl.keystore.location': '/nonexistent.pem',
    },
    'listener.name.ssl.ssl.keystore.location',
    /listener SSL/,
  );
});

test('passwords never appear in errors', () => {
  const f = testTlsFiles();
  try {
    build({
      listeners: 'PLAINTEXT://127.0.0.1:1,SSL://127.0.0.1:2',
      'ssl.keystore.type': 'PKCS12',
      'ssl.keystore.location': f.brokerP12,
      'ssl.keystore.password': 'hunter2-not-it',
    });
    assert.fail('a wrong password must be refused');
  } catch (err) {
    assert.ok(err instanceof ConfigError);
    assert.doesNotMatch(err.message, /hunter2/);
  }
});

test('max.connections, max.connections.per.ip and its overrides', () => {
  const c = build({ 'max.connections': '10', 'max.connections.per.ip': '3', 'max.connections.per.ip.overrides': '127.0.0.1:5,10.0.0.1:0' });
  assert.deepEqual(
    [c.maxConnections, c.maxConnectionsPerIp, [...c.maxConnectionsPerIpOverrides]],
    [
      10,
      3,
      [
        ['127.0.0.1', 5],
        ['10.0.0.1', 0],
      ],
    ],
  );
  refused({ 'max.connections.per.ip.overrides': '127.0.0.1' }, 'max.connections.per.ip.overrides');
});

test('a named SASL_SSL listener gets TLS and its SASL settings by its own name', () => {
  const c = build({
    listeners: 'PLAINTEXT://127.0.0.1:0,CLIENTS://127.0.0.1:0',
    'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,CLIENTS:SASL_SSL',
    'sasl.enabled.mechanisms': 'SCRAM-SHA-512',
    'listener.name.clients.scram-sha-512.sasl.jaas.config': 'org.apache.kafka.common.security.scram.ScramLoginModule required;',
    ...pemListenerKeys(),
  });
  const clients = c.listeners.find((l) => l.name === 'CLIENTS')!;
  assert.equal(clients.securityProtocol, 'SASL_SSL');
  assert.notEqual(clients.tls, null);
  assert.deepEqual([...c.sasl.listeners.keys()], ['CLIENTS']);
  assert.deepEqual(c.sasl.listeners.get('CLIENTS')!.mechanisms, ['SCRAM-SHA-512']);
  assert.equal(
    c.staticSettings.has('listener.name.clients.scram-sha-512.sasl.jaas.config'),
    false,
    'JAAS entries stay out of DescribeConfigs',
  );
});
