import { test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSecureContext } from 'node:tls';
import { generateTlsFiles } from '../src/tls-certificates.js';

test('sluice tls: a CA, a broker certificate naming localhost, 127.0.0.1 and the given hosts, a client certificate, PEM and PKCS12 keystores', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-tls-gen-'));
  try {
    const f = generateTlsFiles({
      dir,
      hosts: ['broker1.example', '10.1.2.3'],
      password: 'pw',
      clientSubject: [
        ['CN', 'app'],
        ['OU', 'team'],
      ],
    });
    const ca = new X509Certificate(readFileSync(f.caCert));
    const broker = new X509Certificate(readFileSync(f.brokerCert));
    const client = new X509Certificate(readFileSync(f.clientCert));
    assert.ok(ca.ca, 'the CA certificate is a CA');
    assert.ok(broker.verify(ca.publicKey) && client.verify(ca.publicKey), 'both are signed by the CA');
    assert.ok(
      broker.checkHost('localhost') && broker.checkHost('broker1.example') && broker.checkIP('127.0.0.1') && broker.checkIP('10.1.2.3'),
    );
    assert.equal(broker.checkHost('other.example'), undefined);
    assert.equal(f.clientSubject, 'CN=app,OU=team');
    assert.ok(broker.checkPrivateKey(createPrivateKey(readFileSync(f.brokerPem))));
    assert.ok(broker.checkPrivateKey(createPrivateKey({ key: readFileSync(f.brokerEncryptedPem), passphrase: 'pw' })));
    assert.throws(() => createPrivateKey({ key: readFileSync(f.brokerEncryptedPem), passphrase: 'wrong' }));
    assert.ok(createSecureContext({ pfx: readFileSync(f.brokerP12), passphrase: 'pw' }));
    assert.ok(createSecureContext({ pfx: readFileSync(f.clientP12), passphrase: 'pw' }));
    assert.equal(statSync(f.caKey).mode & 0o077, 0, 'keys are readable by their owner only');
    assert.equal(statSync(f.brokerPem).mode & 0o077, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
