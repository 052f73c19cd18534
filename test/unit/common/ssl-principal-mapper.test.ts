import { test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  NoMatchingRuleError,
  PrincipalMappingRulesError,
  rfc2253Name,
  SslPrincipalMapper,
} from '@sluice/protocol/common/ssl-principal-mapper.js';
import { testTlsFiles } from '../../helpers/tls-files.js';

const DN = 'CN=Client One,OU=Clients,O=Example,L=Oslo,C=NO';

test('DEFAULT keeps the distinguished name as it is', () => {
  assert.equal(SslPrincipalMapper.parse('DEFAULT').nameOf(DN), DN);
});

test("rules apply in order; the first whose pattern matches the whole name wins; L and U change the case (Kafka's examples)", () => {
  const mapper = SslPrincipalMapper.parse(
    'RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/, RULE:^CN=(.*?),OU=(.*?),O=(.*?),L=(.*?),ST=(.*?),C=(.*?)$/$1@$2/L, RULE:^.*[Cc][Nn]=([a-zA-Z0-9.]*).*$/$1/U, DEFAULT',
  );
  assert.equal(mapper.nameOf('CN=kafka-broker,OU=ServiceUsers,O=Org'), 'kafka-broker');
  assert.equal(mapper.nameOf('CN=Duke,OU=JavaSoft,O=Sun Microsystems,L=Santa Clara,ST=CA,C=US'), 'duke@javasoft');
  assert.equal(mapper.nameOf('OU=JavaSoft,CN=duke.one,O=Sun'), 'DUKE.ONE');
  assert.equal(mapper.nameOf('O=Nobody'), 'O=Nobody');
});

test('a pattern must match the whole name, not a part of it', () => {
  const mapper = SslPrincipalMapper.parse('RULE:CN=([a-z]+)/$1/,DEFAULT');
  assert.equal(mapper.nameOf('CN=abc'), 'abc');
  assert.equal(mapper.nameOf('CN=abc,O=x'), 'CN=abc,O=x');
});

test('a name no rule matches fails, so the connection is not authenticated', () => {
  assert.throws(() => SslPrincipalMapper.parse('RULE:^CN=admin$/admin/').nameOf(DN), NoMatchingRuleError);
});

test('escaped slashes and commas belong to the pattern and the replacement', () => {
  const mapper = SslPrincipalMapper.parse('RULE:^CN=([^,]*)\\/x,O=(.*)$/$2\\/$1/');
  assert.equal(mapper.nameOf('CN=a/x,O=b'), 'b/a');
});

test('malformed rules are refused when parsed', () => {
  for (const rules of ['', 'RULE:^CN=(.*)$', 'RULE:^CN=(.*)$/$1/X', 'NONSENSE', 'RULE:(/x/']) {
    assert.throws(() => SslPrincipalMapper.parse(rules), PrincipalMappingRulesError, rules);
  }
});

test('the RFC 2253 name of a certificate lists its attributes most specific first, as Java prints it', () => {
  const f = testTlsFiles();
  const cert = new X509Certificate(readFileSync(f.clientCert));
  assert.equal(rfc2253Name(cert.subject), 'CN=client,OU=clients,O=Sluice');
  assert.equal(rfc2253Name(cert.subject), f.clientSubject);
});
