/**
 * Kafka's `ssl.*` keys turned into Node TLS contexts, for a listener's server side and for the
 * broker's own client side (inter-broker connections use the inter-broker listener's keys, as
 * Kafka does). Key material is read once, at start; a key or file that cannot be used fails with
 * a `TlsConfigError` naming the key — never with the password or key in the message.
 *
 * Keystores: PEM (a file holding the private key and certificate chain, or the inline
 * `ssl.keystore.key` + `ssl.keystore.certificate.chain` of KIP-651) or PKCS12. Truststores: PEM
 * (file or inline `ssl.truststore.certificates`) or PKCS12. JKS cannot be read without Java and
 * is refused with the keytool command converting it; a PKCS12 file under Kafka's default type JKS
 * is read, as Java's keystore compatibility mode reads it.
 */
import { readFileSync } from 'node:fs';
import type { SecureContext, SecureContextOptions } from 'node:tls';
import { createRequire } from 'node:module';
import type Forge from 'node-forge';
import { nodeTls } from './node-tls.js';
import { PrincipalMappingRulesError, SslPrincipalMapper } from './ssl-principal-mapper.js';

/** The `ssl.*` values in force for one listener (listener-prefixed keys already applied), defaults included. */
export type SslSettings = ReadonlyMap<string, string>;

export class TlsConfigError extends Error {
  constructor(
    readonly key: string,
    readonly reason: string,
  ) {
    super(`invalid value for ${key}: ${reason}`);
    this.name = 'TlsConfigError';
  }
}

export type ClientAuth = 'required' | 'requested' | 'none';

/** What a TLS listener needs: its context's options (read and checked once) and how it treats client certificates. */
export interface ServerTls {
  readonly contextOptions: SecureContextOptions;
  readonly clientAuth: ClientAuth;
  readonly principalMapper: SslPrincipalMapper;
}

/** What the broker's own TLS connections to other brokers need. */
export interface ClientTls {
  readonly context: SecureContext;
  /** `ssl.endpoint.identification.algorithm=https`: the peer's certificate must name the host dialled. */
  readonly verifyHostname: boolean;
}

const JKS_MAGIC = 0xfeedfeed;
const DER_SEQUENCE = 0x30;

export function serverTls(s: SslSettings): ServerTls {
  const keystore = keystoreOptions(s);
  if (keystore === null)
    throw new TlsConfigError(
      'ssl.keystore.location',
      'an SSL listener needs a keystore (ssl.keystore.location, or ssl.keystore.key with ssl.keystore.certificate.chain)',
    );
  let principalMapper: SslPrincipalMapper;
  try {
    principalMapper = SslPrincipalMapper.parse(s.get('ssl.principal.mapping.rules') ?? 'DEFAULT');
  } catch (err) {
    if (err instanceof PrincipalMappingRulesError) throw new TlsConfigError('ssl.principal.mapping.rules', err.message);
    throw err;
  }
  const contextOptions = { ...keystore, ...truststoreOptions(s), ...protocolOptions(s) };
  // A Node TLS server builds its context from options; building one here fails a bad key or cipher list at start.
  secureContext(contextOptions);
  return { contextOptions, clientAuth: (s.get('ssl.client.auth') ?? 'none') as ClientAuth, principalMapper };
}

export function clientTls(s: SslSettings): ClientTls {
  return {
    context: secureContext({ ...(keystoreOptions(s) ?? {}), ...truststoreOptions(s), ...protocolOptions(s) }),
    verifyHostname: (s.get('ssl.endpoint.identification.algorithm') ?? 'https').toLowerCase() === 'https',
  };
}

function secureContext(options: SecureContextOptions): SecureContext {
  try {
    return nodeTls().createSecureContext(options);
  } catch (err) {
    // Node names what failed (a key not matching its certificate, a wrong password, a bad cipher list) but no secret.
    const message = (err as Error).message;
    throw new TlsConfigError(
      /cipher/i.test(message) ? 'ssl.cipher.suites' : 'ssl.keystore.location',
      `the TLS context cannot be built: ${message}`,
    );
  }
}

function readStore(key: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new TlsConfigError(key, `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

/** The format of a store file: PEM and PKCS12 as configured, JKS refused, PKCS12 recognised under JKS. */
function storeFormat(typeKey: string, locationKey: string, type: string, path: string, data: Buffer): 'PEM' | 'PKCS12' {
  const upper = type.toUpperCase();
  if (upper === 'PEM') return 'PEM';
  if (upper !== 'PKCS12' && upper !== 'JKS') throw new TlsConfigError(typeKey, `${type} is not supported; use PEM or PKCS12`);
  if (data.length >= 4 && data.readUInt32BE(0) === JKS_MAGIC) {
    throw new TlsConfigError(
      typeKey,
      `${path} is a JKS keystore, which Sluice cannot read; convert it to PKCS12 (keytool -importkeystore -srckeystore ${path} -destkeystore ${path}.p12 -deststoretype PKCS12) and set ${typeKey}=PKCS12, or use PEM`,
    );
  }
  if (data[0] !== DER_SEQUENCE) {
    const hint = data.subarray(0, 11).toString('latin1') === '-----BEGIN ' ? `; it looks like PEM: set ${typeKey}=PEM` : '';
    throw new TlsConfigError(locationKey, `${path} is not a ${upper === 'JKS' ? 'PKCS12 or JKS' : upper} file${hint}`);
  }
  return 'PKCS12';
}

function keystoreOptions(s: SslSettings): SecureContextOptions | null {
  const type = s.get('ssl.keystore.type') ?? 'JKS';
  const location = s.get('ssl.keystore.location');
  const keyPassword = s.get('ssl.key.password');
  const inlineKey = s.get('ssl.keystore.key');
  const inlineChain = s.get('ssl.keystore.certificate.chain');
  if (inlineKey !== undefined || inlineChain !== undefined) {
    if (type.toUpperCase() !== 'PEM')
      throw new TlsConfigError('ssl.keystore.type', 'ssl.keystore.key and ssl.keystore.certificate.chain need ssl.keystore.type=PEM');
    if (location !== undefined)
      throw new TlsConfigError('ssl.keystore.location', 'set either ssl.keystore.location or the inline ssl.keystore.key, not both');
    if (inlineKey === undefined || inlineChain === undefined)
      throw new TlsConfigError(
        inlineKey === undefined ? 'ssl.keystore.key' : 'ssl.keystore.certificate.chain',
        'the inline PEM keystore needs both the key and the certificate chain',
      );
    return { key: inlineKey, cert: inlineChain, passphrase: keyPassword };
  }
  if (location === undefined) return null;
  const data = readStore('ssl.keystore.location', location);
  if (storeFormat('ssl.keystore.type', 'ssl.keystore.location', type, location, data) === 'PKCS12') {
    return { pfx: data, passphrase: s.get('ssl.keystore.password') ?? keyPassword ?? '' };
  }
  const text = data.toString('utf8');
  if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(text))
    throw new TlsConfigError('ssl.keystore.location', `${location} holds no PEM private key`);
  if (!text.includes('-----BEGIN CERTIFICATE-----'))
    throw new TlsConfigError('ssl.keystore.location', `${location} holds no PEM certificate`);
  return { key: text, cert: text, passphrase: keyPassword };
}

/** No truststore: the default root certificates, as Java falls back to its own. */
function truststoreOptions(s: SslSettings): SecureContextOptions {
  const type = s.get('ssl.truststore.type') ?? 'JKS';
  const location = s.get('ssl.truststore.location');
  const inline = s.get('ssl.truststore.certificates');
  if (inline !== undefined) {
    if (type.toUpperCase() !== 'PEM')
      throw new TlsConfigError('ssl.truststore.type', 'ssl.truststore.certificates needs ssl.truststore.type=PEM');
    if (location !== undefined)
      throw new TlsConfigError('ssl.truststore.location', 'set either ssl.truststore.location or ssl.truststore.certificates, not both');
    return { ca: pemCertificates('ssl.truststore.certificates', inline) };
  }
  if (location === undefined) return {};
  const data = readStore('ssl.truststore.location', location);
  if (storeFormat('ssl.truststore.type', 'ssl.truststore.location', type, location, data) === 'PEM') {
    return { ca: pemCertificates('ssl.truststore.location', data.toString('utf8')) };
  }
  return { ca: pkcs12Certificates(data, s.get('ssl.truststore.password')) };
}

function pemCertificates(key: string, text: string): string[] {
  const certs = text.match(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g);
  if (certs === null) throw new TlsConfigError(key, 'holds no PEM certificate');
  return certs;
}

/** node-forge takes ~170 ms to load: only a PKCS12 truststore needs it, so every broker start does not pay. */
function loadForge(): typeof Forge {
  return createRequire(import.meta.url)('node-forge') as typeof Forge;
}

/** Node reads PKCS12 only with a private key (`pfx`); a truststore holds certificates alone. */
function pkcs12Certificates(data: Buffer, password: string | undefined): string[] {
  let certs: string[];
  try {
    const forge = loadForge();
    const p12 = forge.pkcs12.pkcs12FromAsn1(forge.asn1.fromDer(data.toString('binary')), false, password ?? '');
    const bags = p12.getBags({ bagType: forge.pki.oids.certBag! })[forge.pki.oids.certBag!] ?? [];
    certs = bags.flatMap((b) => (b.cert === undefined ? [] : [forge.pki.certificateToPem(b.cert)]));
  } catch (err) {
    throw new TlsConfigError(
      'ssl.truststore.location',
      `the PKCS12 truststore cannot be read (wrong ssl.truststore.password?): ${(err as Error).message}`,
    );
  }
  if (certs.length === 0) throw new TlsConfigError('ssl.truststore.location', 'the PKCS12 truststore holds no certificate');
  return certs;
}

const TLS_VERSIONS = ['TLSv1.2', 'TLSv1.3'] as const;

function protocolOptions(s: SslSettings): SecureContextOptions {
  const enabled = (s.get('ssl.enabled.protocols') ?? 'TLSv1.2,TLSv1.3')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  const versions = TLS_VERSIONS.filter((v) => enabled.includes(v));
  if (versions.length === 0) throw new TlsConfigError('ssl.enabled.protocols', 'enables neither TLSv1.2 nor TLSv1.3');
  const suites = (s.get('ssl.cipher.suites') ?? '')
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '');
  return {
    minVersion: versions[0],
    maxVersion: versions[versions.length - 1],
    ...(suites.length === 0 ? {} : { ciphers: suites.map(openSslCipherName).join(':') }),
  };
}

/**
 * Java (and `ssl.cipher.suites`) name TLS 1.2 suites by their IANA names, OpenSSL by its own; TLS
 * 1.3 suites have one name in both. An OpenSSL name is taken as it is.
 */
const IANA_TO_OPENSSL: Readonly<Record<string, string>> = {
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: 'ECDHE-ECDSA-AES128-GCM-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: 'ECDHE-ECDSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: 'ECDHE-RSA-AES128-GCM-SHA256',
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: 'ECDHE-RSA-AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_DHE_RSA_WITH_AES_128_GCM_SHA256: 'DHE-RSA-AES128-GCM-SHA256',
  TLS_DHE_RSA_WITH_AES_256_GCM_SHA384: 'DHE-RSA-AES256-GCM-SHA384',
  TLS_DHE_RSA_WITH_CHACHA20_POLY1305_SHA256: 'DHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256: 'ECDHE-ECDSA-AES128-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA384: 'ECDHE-ECDSA-AES256-SHA384',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256: 'ECDHE-RSA-AES128-SHA256',
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA384: 'ECDHE-RSA-AES256-SHA384',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: 'ECDHE-ECDSA-AES128-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: 'ECDHE-ECDSA-AES256-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: 'ECDHE-RSA-AES128-SHA',
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: 'ECDHE-RSA-AES256-SHA',
  TLS_RSA_WITH_AES_128_GCM_SHA256: 'AES128-GCM-SHA256',
  TLS_RSA_WITH_AES_256_GCM_SHA384: 'AES256-GCM-SHA384',
  TLS_RSA_WITH_AES_128_CBC_SHA256: 'AES128-SHA256',
  TLS_RSA_WITH_AES_256_CBC_SHA256: 'AES256-SHA256',
  TLS_RSA_WITH_AES_128_CBC_SHA: 'AES128-SHA',
  TLS_RSA_WITH_AES_256_CBC_SHA: 'AES256-SHA',
};

const TLS13_SUITES = new Set([
  'TLS_AES_128_GCM_SHA256',
  'TLS_AES_256_GCM_SHA384',
  'TLS_CHACHA20_POLY1305_SHA256',
  'TLS_AES_128_CCM_SHA256',
  'TLS_AES_128_CCM_8_SHA256',
]);

export function openSslCipherName(name: string): string {
  if (TLS13_SUITES.has(name)) return name;
  const mapped = IANA_TO_OPENSSL[name];
  if (mapped !== undefined) return mapped;
  if (name.startsWith('TLS_') || name.startsWith('SSL_'))
    throw new TlsConfigError('ssl.cipher.suites', `${name} is not a cipher suite Sluice knows; use its OpenSSL name`);
  return name;
}
