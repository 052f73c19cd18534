/**
 * A test CA and the broker and client certificates signed by it, for a local TLS setup (and the
 * tests): RSA keys from Node's crypto, X.509 certificates and PKCS12 files from node-forge, so no
 * openssl binary or Java is needed. Not for production: the CA key sits beside the certificates.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import forge from 'node-forge';

export interface TlsFilesOptions {
  readonly dir: string;
  /** Host names and IP addresses the broker certificate names, besides localhost and 127.0.0.1. */
  readonly hosts?: readonly string[];
  /** The client certificate's subject, in RFC 2253 order (most specific first). */
  readonly clientSubject?: readonly (readonly [string, string])[];
  /** Password of the PKCS12 keystores and of the encrypted copy of the broker key. */
  readonly password: string;
  readonly validDays?: number;
}

/** Paths of what `generateTlsFiles` wrote. */
export interface TlsFiles {
  /** The CA certificate: every truststore's content. */
  readonly caCert: string;
  readonly caKey: string;
  /** PEM keystores: the private key (PKCS#8), then the certificate chain. */
  readonly brokerPem: string;
  readonly clientPem: string;
  /** The broker keystore with its key encrypted under the password (ssl.key.password). */
  readonly brokerEncryptedPem: string;
  /** The certificates and keys alone, as librdkafka's ssl.certificate.location / ssl.key.location take them. */
  readonly brokerCert: string;
  readonly clientCert: string;
  readonly clientKey: string;
  /** PKCS12 keystores under the password. */
  readonly brokerP12: string;
  readonly clientP12: string;
  /** The broker certificate's subject and the client's, RFC 2253. */
  readonly brokerSubject: string;
  readonly clientSubject: string;
}

const DEFAULT_VALID_DAYS = 365;
const KEY_BITS = 2048;

interface Issued {
  readonly key: forge.pki.rsa.PrivateKey;
  readonly keyPem: string;
  readonly cert: forge.pki.Certificate;
}

function newKey(): { key: forge.pki.rsa.PrivateKey; keyPem: string; publicKey: forge.pki.rsa.PublicKey } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: KEY_BITS,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { key: forge.pki.privateKeyFromPem(privateKey), keyPem: privateKey, publicKey: forge.pki.publicKeyFromPem(publicKey) };
}

/** `subject` is most specific first (RFC 2253); a certificate lists it the other way round. */
function issue(subject: readonly (readonly [string, string])[], extensions: object[], validDays: number, issuer: Issued | null): Issued {
  const { key, keyPem, publicKey } = newKey();
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKey;
  // A positive serial: the first byte's high bit clear.
  cert.serialNumber = `01${randomBytes(15).toString('hex')}`;
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + validDays * 86_400_000);
  const attrs = [...subject].reverse().map(([shortName, value]) => ({ shortName, value }));
  cert.setSubject(attrs);
  cert.setIssuer(issuer === null ? attrs : issuer.cert.subject.attributes);
  cert.setExtensions(extensions);
  cert.sign(issuer === null ? key : issuer.key, forge.md.sha256.create());
  return { key, keyPem, cert };
}

function altNames(hosts: readonly string[]): object[] {
  return [...new Set(['localhost', '127.0.0.1', ...hosts])].map((h) => (isIP(h) === 0 ? { type: 2, value: h } : { type: 7, ip: h }));
}

function p12(issued: Issued, ca: Issued, password: string): Buffer {
  const asn1 = forge.pkcs12.toPkcs12Asn1(issued.key, [issued.cert, ca.cert], password, { algorithm: 'aes256', friendlyName: 'sluice' });
  return Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary');
}

export function rfc2253(subject: readonly (readonly [string, string])[]): string {
  return subject.map(([k, v]) => `${k}=${v}`).join(',');
}

export function generateTlsFiles(options: TlsFilesOptions): TlsFiles {
  const validDays = options.validDays ?? DEFAULT_VALID_DAYS;
  mkdirSync(options.dir, { recursive: true });
  const ca = issue(
    [
      ['CN', 'Sluice Test CA'],
      ['O', 'Sluice'],
    ],
    [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    ],
    validDays,
    null,
  );
  const brokerSubject: [string, string][] = [
    ['CN', 'sluice-broker'],
    ['O', 'Sluice'],
  ];
  const broker = issue(
    brokerSubject,
    [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      // The broker's certificate also authenticates it to the other brokers it connects to.
      { name: 'extKeyUsage', serverAuth: true, clientAuth: true },
      { name: 'subjectAltName', altNames: altNames(options.hosts ?? []) },
    ],
    validDays,
    ca,
  );
  const clientSubject = options.clientSubject ?? [
    ['CN', 'client'],
    ['OU', 'clients'],
    ['O', 'Sluice'],
  ];
  const client = issue(
    clientSubject,
    [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', clientAuth: true },
    ],
    validDays,
    ca,
  );

  const pem = (c: forge.pki.Certificate): string => forge.pki.certificateToPem(c);
  const files = {
    caCert: join(options.dir, 'ca.crt'),
    caKey: join(options.dir, 'ca.key'),
    brokerPem: join(options.dir, 'broker.pem'),
    brokerEncryptedPem: join(options.dir, 'broker-encrypted.pem'),
    brokerCert: join(options.dir, 'broker.crt'),
    clientPem: join(options.dir, 'client.pem'),
    clientCert: join(options.dir, 'client.crt'),
    clientKey: join(options.dir, 'client.key'),
    brokerP12: join(options.dir, 'broker.p12'),
    clientP12: join(options.dir, 'client.p12'),
  };
  const secret = { mode: 0o600 };
  writeFileSync(files.caCert, pem(ca.cert));
  writeFileSync(files.caKey, ca.keyPem, secret);
  const brokerChain = pem(broker.cert) + pem(ca.cert);
  writeFileSync(files.brokerPem, broker.keyPem + brokerChain, secret);
  const encrypted = forge.pki.encryptRsaPrivateKey(broker.key, options.password, { algorithm: 'aes256' });
  writeFileSync(files.brokerEncryptedPem, `${encrypted.trim()}\n${brokerChain}`, secret);
  writeFileSync(files.brokerCert, brokerChain);
  writeFileSync(files.clientPem, client.keyPem + pem(client.cert) + pem(ca.cert), secret);
  writeFileSync(files.clientCert, pem(client.cert) + pem(ca.cert));
  writeFileSync(files.clientKey, client.keyPem, secret);
  writeFileSync(files.brokerP12, p12(broker, ca, options.password), secret);
  writeFileSync(files.clientP12, p12(client, ca, options.password), secret);
  return { ...files, brokerSubject: rfc2253(brokerSubject), clientSubject: rfc2253(clientSubject) };
}
