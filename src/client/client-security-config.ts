/**
 * The security part of a Kafka client configuration (the `--command-config` file of the tools,
 * as kafka-topics.sh and friends read it): `security.protocol`, `sasl.mechanism` and the
 * `username`/`password` options of `sasl.jaas.config`'s PlainLoginModule or ScramLoginModule.
 */
import { KafkaError } from '../common/kafka-error.js';
import { ErrorCode } from '../protocol/errors.js';
import { JaasConfigError, parseJaasConfig, PLAIN_LOGIN_MODULE, SCRAM_LOGIN_MODULE } from '../security/sasl/jaas.js';
import { scramMechanism } from '../security/sasl/scram-formatter.js';
import type { SaslCredentials } from './sasl-client.js';

function invalid(key: string, message: string): KafkaError {
  return new KafkaError(ErrorCode.INVALID_CONFIG, `${key}: ${message}`);
}

/** The SASL credentials the settings ask for; undefined for a PLAINTEXT client. */
export function clientSaslCredentials(settings: ReadonlyMap<string, string>): SaslCredentials | undefined {
  const protocol = settings.get('security.protocol')?.trim().toUpperCase() ?? 'PLAINTEXT';
  if (protocol === 'PLAINTEXT') return undefined;
  if (protocol !== 'SASL_PLAINTEXT') throw invalid('security.protocol', `${protocol} is not supported by this client (PLAINTEXT, SASL_PLAINTEXT)`);
  // Kafka's client default is GSSAPI, which is not supported here.
  const mechanism = settings.get('sasl.mechanism')?.trim() ?? 'GSSAPI';
  if (mechanism !== 'PLAIN' && scramMechanism(mechanism) === undefined) throw invalid('sasl.mechanism', `${mechanism} is not supported (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512)`);
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
  if (username === undefined || password === undefined) throw invalid('sasl.jaas.config', 'the login module needs username and password options');
  return { mechanism, username, password };
}
