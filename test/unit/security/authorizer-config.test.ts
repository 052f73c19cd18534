import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildConfig, ConfigError } from '../../../src/broker/config.js';

const build = (o: Record<string, string>) => buildConfig(new Map(Object.entries(o))).config;

test("authorizer.class.name: empty is off; Kafka's two ACL authorizers are on, with super.users and allow.everyone.if.no.acl.found", () => {
  assert.equal(build({}).authorizer, null);
  assert.equal(build({ 'authorizer.class.name': '' }).authorizer, null);
  assert.deepEqual(build({ 'authorizer.class.name': 'kafka.security.authorizer.AclAuthorizer' }).authorizer, {
    superUsers: [],
    allowEveryoneIfNoAclFound: false,
  });
  assert.deepEqual(
    build({
      'authorizer.class.name': 'org.apache.kafka.metadata.authorizer.StandardAuthorizer',
      'super.users': 'User:admin;User:broker',
      'allow.everyone.if.no.acl.found': 'true',
    }).authorizer,
    { superUsers: ['User:admin', 'User:broker'], allowEveryoneIfNoAclFound: true },
  );
});

test('any other authorizer is a config error naming the key', () => {
  assert.throws(
    () => build({ 'authorizer.class.name': 'com.example.MyAuthorizer' }),
    (err: unknown) =>
      err instanceof ConfigError && err.message.includes('authorizer.class.name') && err.message.includes('com.example.MyAuthorizer'),
  );
});
