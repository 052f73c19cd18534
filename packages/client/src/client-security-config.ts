/**
 * The security part of a Kafka client configuration (the `--command-config` file of the tools,
 * as kafka-topics.sh and friends read it): `security.protocol`, `sasl.mechanism` and the
 * `username`/`password` options of `sasl.jaas.config`'s PlainLoginModule or ScramLoginModule,
 * and for SSL / SASL_SSL the `ssl.*` keys of the truststore (and keystore, for a client
 * certificate), read as the broker reads its own.
 */
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { clientTls, TlsConfigError, type ClientTls } from '@sluice/protocol/common/tls-config.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { JaasConfigError, parseJaasConfig, PLAIN_LOGIN_MODULE, SCRAM_LOGIN_MODULE } from '@sluice/protocol/sasl/jaas.js';
import { scramMechanism } from '@sluice/protocol/sasl/scram-formatter.js';
import type { SaslCredentials } from './sasl-client.js';

function invalid(key: string, message: string): KafkaError {
  return new KafkaError(ErrorCode.INVALID_CONFIG, `${key}: ${message}`);
}

export interface ClientSecurity {
  readonly sasl?: SaslCredentials;
  readonly tls?: ClientTls;
}

const PROTOCOLS = new Set(['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL']);

/** What the settings ask a connection to do: TLS for SSL and SASL_SSL, SASL for SASL_*. */
export function clientSecurity(settings: ReadonlyMap<string, string>): ClientSecurity {
  const protocol = settings.get('security.protocol')?.trim().toUpperCase() ?? 'PLAINTEXT';
  if (!PROTOCOLS.has(protocol)) throw invalid('security.protocol', `${protocol} is not one of ${[...PROTOCOLS].join(', ')}`);
  const tls = protocol.endsWith('SSL') ? clientTlsOf(settings) : undefined;
  const sasl = protocol.startsWith('SASL_') ? saslCredentials(settings) : undefined;
  return { ...(tls === undefined ? {} : { tls }), ...(sasl === undefined ? {} : { sasl }) };
}

function clientTlsOf(settings: ReadonlyMap<string, string>): ClientTls {
  try {
    return clientTls(settings);
  } catch (err) {
    if (err instanceof TlsConfigError) throw invalid(err.key, err.reason);
    throw err;
  }
}

function saslCredentials(settings: ReadonlyMap<string, string>): SaslCredentials {
  // Kafka's client default is GSSAPI, which is not supported here.
  const mechanism = settings.get('sasl.mechanism')?.trim() ?? 'GSSAPI';
  if (mechanism !== 'PLAIN' && scramMechanism(mechanism) === undefined)
    throw invalid('sasl.mechanism', `${mechanism} is not supported (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512)`);
  const text = settings.get('sasl.jaas.config');
  if (text === undefined) throw invalid('sasl.jaas.config', `required for SASL mechanism ${mechanism}`);
  let options: ReadonlyMap<string, string>;
  try {
    const entry = parseJaasConfig(text);
    const module = mechanism === 'PLAIN' ? PLAIN_LOGIN_MODULE : SCRAM_LOGIN_MODULE;
    if (entry.loginModule !== module) throw invalid('sasl.jaas.config', `mechanism ${mechanism} needs ${module}`);
    options = entry.options;
  } catch (err) {
    if (err instanceof JaasConfigError) throw invalid('sasl.jaas.config', err.message);
    throw err;
  }
  const username = options.get('username');
  const password = options.get('password');
  if (username === undefined || password === undefined)
    throw invalid('sasl.jaas.config', 'the login module needs username and password options');
  return { mechanism, username, password };
}
