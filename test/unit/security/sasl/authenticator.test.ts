import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Logger } from '../../../../src/common/logger.js';
import { BrokerMetrics } from '../../../../src/common/metrics/broker-metrics.js';
import { ANONYMOUS_PRINCIPAL, type SecurityProtocol, type Session } from '../../../../src/common/session.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { SaslAuthenticator } from '../../../../src/security/sasl/authenticator.js';
import { buildSaslConfig } from '../../../../src/security/sasl/sasl-config.js';
import { credentialFromPassword, scramMechanism } from '@sluice/protocol/sasl/scram-formatter.js';
import { authenticate } from '@sluice/client/sasl-client.js';

const API_VERSIONS = 18;
const SASL_HANDSHAKE = 17;
const SASL_AUTHENTICATE = 36;
const METADATA = 3;
const PLAIN_JAAS =
  'org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="admin-pw" user_admin="admin-pw" user_alice="alice-pw" user_bob="bob-pw";';
const SCRAM_JAAS = 'org.apache.kafka.common.security.scram.ScramLoginModule required;';

function session(protocol: SecurityProtocol = 'SASL_PLAINTEXT'): Session {
  return {
    listenerName: protocol,
    securityProtocol: protocol,
    principal: ANONYMOUS_PRINCIPAL,
    clientAddress: '127.0.0.1:5000',
    clientHost: '127.0.0.1',
  };
}

function harness(settings: Record<string, string> = {}) {
  let now = 1_000_000;
  const metrics = new BrokerMetrics();
  const config = buildSaslConfig(
    (k) =>
      ({
        'sasl.enabled.mechanisms': 'PLAIN,SCRAM-SHA-256',
        'listener.name.sasl_plaintext.plain.sasl.jaas.config': PLAIN_JAAS,
        'listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config': SCRAM_JAAS,
        ...settings,
      })[k],
    ['SASL_PLAINTEXT'],
  );
  const alice = credentialFromPassword(scramMechanism('SCRAM-SHA-256')!, 'alice-scram', 4096);
  const auth = new SaslAuthenticator(
    config,
    (user) => (user === 'alice' ? alice : undefined),
    metrics,
    infoLogger(),
    () => now,
  );
  return { auth, metrics, advance: (ms: number) => (now += ms) };
}

/** The failure lines are info: seen whatever SLUICE_LOG_LEVEL the suite runs with. */
function infoLogger(): Logger {
  const level = process.env['SLUICE_LOG_LEVEL'];
  process.env['SLUICE_LOG_LEVEL'] = 'info';
  try {
    return new Logger('test');
  } finally {
    if (level === undefined) delete process.env['SLUICE_LOG_LEVEL'];
    else process.env['SLUICE_LOG_LEVEL'] = level;
  }
}

function plainToken(user: string, password: string): Buffer {
  return Buffer.from(`\u0000${user}\u0000${password}`);
}

async function counted(metrics: BrokerMetrics, name: string): Promise<string> {
  return (await metrics.registry.getSingleMetricAsString(name))
    .split('\n')
    .filter((l) => !l.startsWith('#'))
    .join('\n');
}

test('before authentication only ApiVersions (once) and SaslHandshake are served; anything else closes', () => {
  const { auth } = harness();
  const s = session();
  assert.equal(auth.admit(s, API_VERSIONS), 'serve');
  assert.equal(auth.admit(s, API_VERSIONS), 'close');
  const t = session();
  assert.equal(auth.admit(t, METADATA), 'close');
  const u = session();
  assert.equal(auth.admit(u, SASL_AUTHENTICATE), 'close');
});

test('after the handshake only SaslAuthenticate; once authenticated everything, as User:<name>', () => {
  const { auth } = harness();
  const s = session();
  assert.equal(auth.admit(s, SASL_HANDSHAKE), 'serve');
  assert.deepEqual(auth.handshake(s, 'PLAIN'), { errorCode: ErrorCode.NONE, mechanisms: ['PLAIN', 'SCRAM-SHA-256'] });
  assert.equal(auth.admit(s, API_VERSIONS), 'close');
  const t = session();
  auth.admit(t, SASL_HANDSHAKE);
  auth.handshake(t, 'PLAIN');
  assert.equal(auth.admit(t, SASL_AUTHENTICATE), 'serve');
  const result = auth.authenticate(t, plainToken('alice', 'alice-pw'));
  assert.equal(result.errorCode, ErrorCode.NONE);
  assert.equal(result.sessionLifetimeMs, 0);
  assert.equal(t.principal, 'User:alice');
  assert.equal(auth.takeClosingDelay(t), null);
  assert.equal(auth.admit(t, METADATA), 'serve');
  // Kafka answers these after authentication (without re-authentication) with ILLEGAL_SASL_STATE.
  assert.equal(auth.admit(t, SASL_HANDSHAKE), 'serve');
  assert.equal(auth.handshake(t, 'PLAIN').errorCode, ErrorCode.ILLEGAL_SASL_STATE);
  assert.equal(auth.authenticate(t, plainToken('alice', 'alice-pw')).errorCode, ErrorCode.ILLEGAL_SASL_STATE);
});

test('a mechanism the listener does not enable: UNSUPPORTED_SASL_MECHANISM with the enabled list, then a delayed close', async () => {
  const { auth, metrics } = harness({ 'connection.failed.authentication.delay.ms': '250' });
  const s = session();
  auth.admit(s, SASL_HANDSHAKE);
  assert.deepEqual(auth.handshake(s, 'SCRAM-SHA-512'), {
    errorCode: ErrorCode.UNSUPPORTED_SASL_MECHANISM,
    mechanisms: ['PLAIN', 'SCRAM-SHA-256'],
  });
  assert.equal(auth.takeClosingDelay(s), 250);
  assert.equal(auth.admit(s, SASL_AUTHENTICATE), 'close');
  assert.match(await counted(metrics, 'sluice_authentications_total'), /mechanism="other",result="failure",reauthentication="false"} 1/);
});

test("wrong password and unknown user: SASL_AUTHENTICATION_FAILED with Kafka's messages, counted, never the password in the log", async () => {
  const { auth, metrics } = harness();
  const lines: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = (chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  };
  try {
    const results = [plainToken('alice', 'guess-1'), plainToken('mallory', 'guess-2')].map((token) => {
      const s = session();
      auth.admit(s, SASL_HANDSHAKE);
      auth.handshake(s, 'PLAIN');
      const r = auth.authenticate(s, token);
      assert.equal(auth.takeClosingDelay(s), 100);
      assert.equal(s.principal, ANONYMOUS_PRINCIPAL);
      return r;
    });
    for (const r of results)
      assert.deepEqual(
        [r.errorCode, r.errorMessage],
        [ErrorCode.SASL_AUTHENTICATION_FAILED, 'Authentication failed: Invalid username or password'],
      );
    const s = session();
    auth.admit(s, SASL_HANDSHAKE);
    auth.handshake(s, 'SCRAM-SHA-256');
    const scram = auth.authenticate(s, Buffer.from('n,,n=mallory,r=abc'));
    assert.deepEqual(
      [scram.errorCode, scram.errorMessage],
      [
        ErrorCode.SASL_AUTHENTICATION_FAILED,
        'Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-256',
      ],
    );
  } finally {
    process.stderr.write = write;
  }
  // Rate-limited: three failures within the interval make one line.
  assert.equal(lines.filter((l) => l.includes('failed authentication')).length, 1);
  assert.ok(lines.every((l) => !l.includes('guess-')));
  assert.match(await counted(metrics, 'sluice_authentications_total'), /mechanism="PLAIN",result="failure",reauthentication="false"} 2/);
});

test('SCRAM through the authenticator with the client side of this broker', async () => {
  const { auth } = harness();
  const s = session();
  auth.admit(s, SASL_HANDSHAKE);
  await authenticate(
    {
      async handshake(mechanism) {
        assert.equal(auth.handshake(s, mechanism).errorCode, ErrorCode.NONE);
      },
      async send(token) {
        assert.equal(auth.admit(s, SASL_AUTHENTICATE), 'serve');
        const r = auth.authenticate(s, token);
        assert.equal(r.errorCode, ErrorCode.NONE, r.errorMessage ?? '');
        return r;
      },
    },
    { mechanism: 'SCRAM-SHA-256', username: 'alice', password: 'alice-scram' },
  );
  assert.equal(s.principal, 'User:alice');
});

function plainLogin(auth: SaslAuthenticator, s: Session, user: string, password: string) {
  assert.equal(auth.admit(s, SASL_HANDSHAKE), 'serve');
  assert.equal(auth.handshake(s, 'PLAIN').errorCode, ErrorCode.NONE);
  assert.equal(auth.admit(s, SASL_AUTHENTICATE), 'serve');
  return auth.authenticate(s, plainToken(user, password));
}

test('connections.max.reauth.ms: the session lifetime is granted, an expired session closes on its next request', async () => {
  const { auth, metrics, advance } = harness({
    'listener.name.sasl_plaintext.connections.max.reauth.ms': '5000',
    'listener.name.sasl_plaintext.plain.connections.max.reauth.ms': '3000',
  });
  const s = session();
  assert.equal(plainLogin(auth, s, 'alice', 'alice-pw').sessionLifetimeMs, 3000);
  advance(2999);
  assert.equal(auth.admit(s, METADATA), 'serve');
  advance(1);
  assert.equal(auth.admit(s, METADATA), 'close');
  assert.match(await counted(metrics, 'sluice_expired_connections_killed_total'), /listener="SASL_PLAINTEXT"} 1/);
  const t = session();
  plainLogin(auth, t, 'alice', 'alice-pw');
  advance(3000);
  assert.equal(auth.admit(t, SASL_AUTHENTICATE), 'close');
});

test('re-authentication renews the session with the same principal and mechanism, at most once a second', () => {
  const { auth, advance } = harness({ 'connections.max.reauth.ms': '10000' });
  const s = session();
  plainLogin(auth, s, 'alice', 'alice-pw');
  advance(9000);
  const renewed = plainLogin(auth, s, 'alice', 'alice-pw');
  assert.equal(renewed.errorCode, ErrorCode.NONE);
  assert.equal(renewed.sessionLifetimeMs, 10000);
  // Past the first session's end, within the renewed one; then past that too.
  advance(9000);
  assert.equal(auth.admit(s, METADATA), 'serve');
  advance(1500);
  assert.equal(auth.admit(s, METADATA), 'close');
  // Within a second of the previous re-authentication a SaslHandshake is an ordinary request.
  const quick = session();
  plainLogin(auth, quick, 'alice', 'alice-pw');
  advance(1000);
  plainLogin(auth, quick, 'alice', 'alice-pw');
  advance(10);
  assert.equal(auth.admit(quick, SASL_HANDSHAKE), 'serve');
  assert.equal(auth.handshake(quick, 'PLAIN').errorCode, ErrorCode.ILLEGAL_SASL_STATE);
});

test('a re-authentication as another user or with another mechanism fails and closes', () => {
  const { auth, advance } = harness({ 'connections.max.reauth.ms': '10000' });
  const s = session();
  plainLogin(auth, s, 'alice', 'alice-pw');
  advance(2000);
  const other = plainLogin(auth, s, 'bob', 'bob-pw');
  assert.deepEqual(
    [other.errorCode, other.errorMessage],
    [ErrorCode.SASL_AUTHENTICATION_FAILED, 'Cannot change principals during re-authentication from User.alice: User.bob'],
  );
  assert.equal(s.principal, 'User:alice');
  assert.equal(auth.takeClosingDelay(s), 100);
  assert.equal(auth.admit(s, METADATA), 'close');
  const t = session();
  plainLogin(auth, t, 'alice', 'alice-pw');
  advance(2000);
  auth.admit(t, SASL_HANDSHAKE);
  assert.equal(auth.handshake(t, 'SCRAM-SHA-256').errorCode, ErrorCode.NONE);
  const r = auth.authenticate(t, Buffer.from('n,,n=alice,r=abc'));
  assert.equal(r.errorCode, ErrorCode.SASL_AUTHENTICATION_FAILED);
  assert.match(r.errorMessage!, /not supported for re-authentication of mechanism 'PLAIN'/);
});

test('connections of non-SASL listeners are served as they are; SASL requests there get ILLEGAL_SASL_STATE', () => {
  const { auth } = harness();
  const s = session('PLAINTEXT');
  assert.equal(auth.admit(s, METADATA), 'serve');
  assert.equal(auth.handshake(s, 'PLAIN').errorCode, ErrorCode.ILLEGAL_SASL_STATE);
  assert.equal(auth.authenticate(s, plainToken('alice', 'alice-pw')).errorCode, ErrorCode.ILLEGAL_SASL_STATE);
  assert.equal(s.principal, ANONYMOUS_PRINCIPAL);
});
