import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { alterUserScramCredentialsHandler } from '../../../src/handlers/51-alter-user-scram-credentials.js';
import { describeUserScramCredentialsHandler } from '../../../src/handlers/50-describe-user-scram-credentials.js';
import { saslAuthenticateHandler } from '../../../src/handlers/36-sasl-authenticate.js';
import { saslHandshakeHandler } from '../../../src/handlers/17-sasl-handshake.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import {
  AlterUserScramCredentialsRequest,
  AlterUserScramCredentialsResponse,
  DescribeUserScramCredentialsRequest,
  DescribeUserScramCredentialsResponse,
  SaslAuthenticateRequest,
  SaslAuthenticateResponse,
  SaslHandshakeRequest,
  SaslHandshakeResponse,
} from '@sluice/protocol/messages/index.js';
import { credentialFromSaltedPassword, parseCredential, saltedPassword, scramMechanism } from '@sluice/protocol/sasl/scram-formatter.js';
import { call, harness } from './admin-harness.js';

const SHA256 = scramMechanism('SCRAM-SHA-256')!;
const SHA512 = scramMechanism('SCRAM-SHA-512')!;

function upsertion(name: string, mechanism: number, iterations = 4096, password = 'pw') {
  const m = mechanism === 2 ? SHA512 : SHA256;
  const salt = randomBytes(16);
  return { name, mechanism, iterations, salt, saltedPassword: saltedPassword(m, password, salt, Math.max(iterations, 1)) };
}

test("an upsertion stores Kafka's ZooKeeper form of the credential derived from the salted password, never the password", async () => {
  const h = harness();
  const u = upsertion('alice', 1, 8192);
  const res = await call(
    alterUserScramCredentialsHandler,
    AlterUserScramCredentialsRequest,
    AlterUserScramCredentialsResponse,
    0,
    { deletions: [], upsertions: [u] },
    h.cluster,
  );
  assert.deepEqual(res.results, [{ user: 'alice', errorCode: ErrorCode.NONE, errorMessage: null }]);
  const stored = h.cluster.clientEntities.configs({ user: 'alice' }).get('SCRAM-SHA-256')!;
  assert.deepEqual(parseCredential(stored), credentialFromSaltedPassword(SHA256, u.saltedPassword, u.salt, 8192));
  assert.ok(!stored.includes(u.saltedPassword.toString('base64')));
});

test("validation and messages are Kafka 4.4's; successes come first, failures after, and nothing failed is written", async () => {
  const h = harness();
  await call(
    alterUserScramCredentialsHandler,
    AlterUserScramCredentialsRequest,
    AlterUserScramCredentialsResponse,
    0,
    { deletions: [], upsertions: [upsertion('kept', 2)] },
    h.cluster,
  );
  const res = await call(
    alterUserScramCredentialsHandler,
    AlterUserScramCredentialsRequest,
    AlterUserScramCredentialsResponse,
    0,
    {
      deletions: [
        { name: 'kept', mechanism: 2 },
        { name: 'ghost', mechanism: 1 },
        { name: 'odd', mechanism: 9 },
      ],
      upsertions: [
        upsertion('', 1),
        upsertion('few', 1, 4095),
        upsertion('many', 2, 16385),
        upsertion('twice', 1),
        upsertion('twice', 2),
        upsertion('kept', 1),
        upsertion('max', 2, 16384),
      ],
    },
    h.cluster,
  );
  assert.deepEqual(
    res.results.map((r) => [r.user, r.errorCode, r.errorMessage]),
    [
      ['max', ErrorCode.NONE, null],
      ['ghost', ErrorCode.RESOURCE_NOT_FOUND, 'Attempt to delete a user credential that does not exist'],
      ['odd', ErrorCode.UNSUPPORTED_SASL_MECHANISM, 'Unknown SCRAM mechanism'],
      ['', ErrorCode.UNACCEPTABLE_CREDENTIAL, 'Username must not be empty'],
      ['few', ErrorCode.UNACCEPTABLE_CREDENTIAL, 'Too few iterations'],
      ['many', ErrorCode.UNACCEPTABLE_CREDENTIAL, 'Too many iterations'],
      ['twice', ErrorCode.DUPLICATE_RESOURCE, 'A user credential cannot be altered twice in the same request'],
      ['kept', ErrorCode.DUPLICATE_RESOURCE, 'A user credential cannot be altered twice in the same request'],
    ],
  );
  assert.deepEqual([...h.cluster.clientEntities.configs({ user: 'kept' }).keys()], ['SCRAM-SHA-512']);
  assert.equal(h.cluster.clientEntities.configs({ user: 'twice' }).size, 0);
});

test('describe: every user with credentials, or the named ones; a duplicate or a user without credentials is an error of that user', async () => {
  const h = harness();
  for (const u of [upsertion('alice', 1, 8192), upsertion('bob', 2)]) {
    await call(
      alterUserScramCredentialsHandler,
      AlterUserScramCredentialsRequest,
      AlterUserScramCredentialsResponse,
      0,
      { deletions: [], upsertions: [u] },
      h.cluster,
    );
  }
  await call(
    alterUserScramCredentialsHandler,
    AlterUserScramCredentialsRequest,
    AlterUserScramCredentialsResponse,
    0,
    { deletions: [], upsertions: [upsertion('alice', 2)] },
    h.cluster,
  );
  for (const users of [null, []]) {
    const all = await call(
      describeUserScramCredentialsHandler,
      DescribeUserScramCredentialsRequest,
      DescribeUserScramCredentialsResponse,
      0,
      { users },
      h.cluster,
    );
    assert.deepEqual(
      all.results.map((r) => [r.user, r.errorCode, r.credentialInfos.map((c) => [c.mechanism, c.iterations])]),
      [
        [
          'alice',
          ErrorCode.NONE,
          [
            [1, 8192],
            [2, 4096],
          ],
        ],
        ['bob', ErrorCode.NONE, [[2, 4096]]],
      ],
    );
  }
  const named = await call(
    describeUserScramCredentialsHandler,
    DescribeUserScramCredentialsRequest,
    DescribeUserScramCredentialsResponse,
    0,
    { users: [{ name: 'bob' }, { name: 'nobody' }, { name: 'alice' }, { name: 'alice' }] },
    h.cluster,
  );
  assert.deepEqual(
    named.results.map((r) => [r.user, r.errorCode, r.errorMessage]),
    [
      ['bob', ErrorCode.NONE, null],
      ['nobody', ErrorCode.RESOURCE_NOT_FOUND, 'Attempt to describe a user credential that does not exist: nobody'],
      ['alice', ErrorCode.DUPLICATE_RESOURCE, 'Cannot describe SCRAM credentials for the same user twice in a single request: alice'],
    ],
  );
});

test('without SASL listeners, SaslHandshake and SaslAuthenticate are answered ILLEGAL_SASL_STATE, as Kafka answers them on a PLAINTEXT listener', async () => {
  const h = harness();
  const handshake = await call(saslHandshakeHandler, SaslHandshakeRequest, SaslHandshakeResponse, 1, { mechanism: 'PLAIN' }, h.cluster);
  assert.deepEqual(handshake, { errorCode: ErrorCode.ILLEGAL_SASL_STATE, mechanisms: [] });
  const authenticate = await call(
    saslAuthenticateHandler,
    SaslAuthenticateRequest,
    SaslAuthenticateResponse,
    2,
    { authBytes: Buffer.from('\u0000a\u0000b') },
    h.cluster,
  );
  assert.equal(authenticate.errorCode, ErrorCode.ILLEGAL_SASL_STATE);
});
