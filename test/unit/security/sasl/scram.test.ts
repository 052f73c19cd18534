import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ScramServer, type ScramCredentialLookup } from '../../../../src/security/sasl/scram-server.js';
import { InvalidSaslCredentials, SaslAuthenticationError } from '../../../../src/security/sasl/mechanism.js';
import {
  credentialFromPassword,
  formatCredential,
  parseCredential,
  scramMechanism,
  escapeSaslName,
  unescapeSaslName,
  type ScramCredential,
} from '@sluice/protocol/sasl/scram-formatter.js';
import { authenticate, type SaslRoundTrips } from '@sluice/client/sasl-client.js';

const SHA256 = scramMechanism('SCRAM-SHA-256')!;
const SHA512 = scramMechanism('SCRAM-SHA-512')!;

function lookup(users: Record<string, ScramCredential>): ScramCredentialLookup {
  return (user) => users[user];
}

test("RFC 7677's SCRAM-SHA-256 exchange: the server accepts the client's proof and answers its signature", () => {
  const salt = Buffer.from('W22ZaJ0SNY7soEsUEjb6gQ==', 'base64');
  const credential = credentialFromPassword(SHA256, 'pencil', 4096, salt);
  const server = new ScramServer(SHA256, lookup({ user: credential }), () => '%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0');
  const serverFirst = server.evaluate(Buffer.from('n,,n=user,r=rOprNGfwEbeRWgbNEkqO')).toString();
  assert.equal(serverFirst, 'r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096');
  const serverFinal = server
    .evaluate(Buffer.from('c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ='))
    .toString();
  assert.equal(serverFinal, 'v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=');
  assert.equal(server.complete, true);
  assert.equal(server.authorizationId, 'user');
});

test('a proof made with another password is refused, without saying why to the client', () => {
  const salt = Buffer.from('W22ZaJ0SNY7soEsUEjb6gQ==', 'base64');
  const server = new ScramServer(
    SHA256,
    lookup({ user: credentialFromPassword(SHA256, 'not-pencil', 4096, salt) }),
    () => '%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0',
  );
  server.evaluate(Buffer.from('n,,n=user,r=rOprNGfwEbeRWgbNEkqO'));
  assert.throws(
    () =>
      server.evaluate(
        Buffer.from('c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ='),
      ),
    InvalidSaslCredentials,
  );
  assert.equal(server.complete, false);
});

test('the final message must echo the combined nonce and the gs2 header as channel binding', () => {
  const salt = Buffer.from('W22ZaJ0SNY7soEsUEjb6gQ==', 'base64');
  const users = lookup({ user: credentialFromPassword(SHA256, 'pencil', 4096, salt) });
  const nonceServer = new ScramServer(SHA256, users, () => 'SERVER');
  nonceServer.evaluate(Buffer.from('n,,n=user,r=abc'));
  assert.throws(() => nonceServer.evaluate(Buffer.from('c=biws,r=abcOTHER,p=AAAA')), /Invalid client nonce/);
  const bindingServer = new ScramServer(SHA256, users, () => 'SERVER');
  bindingServer.evaluate(Buffer.from('n,,n=user,r=abc'));
  assert.throws(
    () => bindingServer.evaluate(Buffer.from(`c=${Buffer.from('y,,').toString('base64')},r=abcSERVER,p=AAAA`)),
    /channel binding/,
  );
});

test('unknown users, channel binding requests, delegation tokens and too few iterations are refused at the first message', () => {
  const weak: ScramCredential = { ...credentialFromPassword(SHA256, 'p', 4096), iterations: 4095 };
  const users = lookup({ alice: credentialFromPassword(SHA256, 'p', 4096), weak });
  assert.throws(() => new ScramServer(SHA256, users).evaluate(Buffer.from('n,,n=bob,r=abc')), /Invalid user credentials/);
  assert.throws(() => new ScramServer(SHA256, users).evaluate(Buffer.from('p=tls-unique,,n=alice,r=abc')), /client first message format/);
  assert.throws(() => new ScramServer(SHA256, users).evaluate(Buffer.from('n,,n=alice,r=abc,tokenauth=true')), /delegation tokens/);
  assert.throws(() => new ScramServer(SHA256, users).evaluate(Buffer.from('n,,n=weak,r=abc')), /less than the minimum 4096/);
  assert.throws(() => new ScramServer(SHA256, users).evaluate(Buffer.from('n,a=bob,n=alice,r=abc')), SaslAuthenticationError);
});

function roundTripsTo(server: ScramServer): SaslRoundTrips {
  return {
    async handshake() {},
    async send(token) {
      return { authBytes: server.evaluate(token), sessionLifetimeMs: 0 };
    },
  };
}

for (const m of [SHA256, SHA512]) {
  test(`${m.name}: this broker's client authenticates against its server with the right password only`, async () => {
    const users = lookup({ 'al,i=ce': credentialFromPassword(m, 'secret', 8192) });
    const server = new ScramServer(m, users);
    await authenticate(roundTripsTo(server), { mechanism: m.name, username: 'al,i=ce', password: 'secret' });
    assert.equal(server.authorizationId, 'al,i=ce');
    await assert.rejects(
      authenticate(roundTripsTo(new ScramServer(m, users)), { mechanism: m.name, username: 'al,i=ce', password: 'wrong' }),
      InvalidSaslCredentials,
    );
  });
}

test("a stored credential reads back from Kafka's text form; anything else is no credential", () => {
  const c = credentialFromPassword(SHA512, 'pw', 4096);
  const text = formatCredential(c);
  assert.match(text, /^salt=[^,]+,stored_key=[^,]+,server_key=[^,]+,iterations=4096$/);
  assert.deepEqual(parseCredential(text), c);
  assert.equal(parseCredential('salt=abc,iterations=x'), undefined);
  assert.equal(unescapeSaslName(escapeSaslName('a=b,c')), 'a=b,c');
  assert.equal(unescapeSaslName('a=4x'), undefined);
});
