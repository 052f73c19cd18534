import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseJaasConfig, plainUsers, JaasConfigError } from '@sluice/protocol/sasl/jaas.js';

test("Kafka's PlainLoginModule entry: options quoted or bare, comments, users from user_ options", () => {
  const entry = parseJaasConfig(
    'org.apache.kafka.common.security.plain.PlainLoginModule required /* broker */ username="admin" password="a \\"secret\\";=" // x\n user_admin="a \\"secret\\";=" user_alice=alice-pw;',
  );
  assert.equal(entry.loginModule, 'org.apache.kafka.common.security.plain.PlainLoginModule');
  assert.equal(entry.flag, 'required');
  assert.equal(entry.options.get('password'), 'a "secret";=');
  assert.deepEqual(
    [...plainUsers(entry)],
    [
      ['admin', 'a "secret";='],
      ['alice', 'alice-pw'],
    ],
  );
});

test('malformed entries are refused with a reason', () => {
  const bad = [
    'org.apache.kafka.common.security.scram.ScramLoginModule required',
    'org.apache.kafka.common.security.scram.ScramLoginModule mandatory;',
    'org.apache.kafka.common.security.scram.ScramLoginModule required username;',
    'org.apache.kafka.common.security.scram.ScramLoginModule required username="x;',
    'a required; b required;',
    '',
  ];
  for (const text of bad) assert.throws(() => parseJaasConfig(text), JaasConfigError, text);
});
