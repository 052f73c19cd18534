/**
 * The SASL settings of the broker's listeners, from Kafka's keys: `sasl.enabled.mechanisms`
 * (per listener `listener.name.<l>.sasl.enabled.mechanisms`), the JAAS entry of each mechanism
 * (`listener.name.<l>.<mechanism>.sasl.jaas.config`: a broker reads no unprefixed
 * `sasl.jaas.config` and no JAAS file), `connections.max.reauth.ms` (overridable per listener
 * and per listener and mechanism, KIP-368), `connection.failed.authentication.delay.ms`, and
 * `sasl.mechanism.inter.broker.protocol` with the credentials the broker itself logs in with.
 *
 * GSSAPI and OAUTHBEARER are not served: a listener whose enabled mechanisms are only those
 * (GSSAPI is Kafka's default) is a configuration error; listed beside served ones they are
 * ignored with a warning.
 */
import {
  parseJaasConfig,
  plainUsers,
  PLAIN_LOGIN_MODULE,
  SCRAM_LOGIN_MODULE,
  JaasConfigError,
  type JaasEntry,
} from '@sluice/protocol/sasl/jaas.js';
import { scramMechanism } from '@sluice/protocol/sasl/scram-formatter.js';

export const SERVED_MECHANISMS = ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'] as const;
const KNOWN_UNSERVED_MECHANISMS = new Set(['GSSAPI', 'OAUTHBEARER']);

/** Keys that may follow `listener.name.<listener>.` (and, marked `<mechanism>.`, a mechanism). */
const LISTENER_KEYS = new Set(['sasl.enabled.mechanisms', 'connections.max.reauth.ms']);
const LISTENER_MECHANISM_KEYS = new Set(['sasl.jaas.config', 'connections.max.reauth.ms']);

export interface SaslListenerConfig {
  readonly listenerName: string;
  /** Served mechanisms enabled on the listener, in configured order (what SaslHandshake lists). */
  readonly mechanisms: readonly string[];
  /** The `user_<name>` passwords of the PLAIN JAAS entry (empty without PLAIN). */
  readonly plainUsers: ReadonlyMap<string, string>;
  /** `connections.max.reauth.ms` per mechanism; 0 leaves sessions unlimited. */
  readonly maxReauthMs: ReadonlyMap<string, number>;
  /** The JAAS entry of each enabled mechanism. */
  readonly jaas: ReadonlyMap<string, JaasEntry>;
}

/** How this broker authenticates on the inter-broker listener when it is a SASL one. */
export interface SaslClientCredentials {
  readonly mechanism: string;
  readonly username: string;
  readonly password: string;
}

export interface SaslConfig {
  /** Per SASL listener name. */
  readonly listeners: ReadonlyMap<string, SaslListenerConfig>;
  readonly failedAuthenticationDelayMs: number;
  /** Things worth telling the operator (unserved mechanisms that were ignored). */
  readonly warnings: readonly string[];
}

export class SaslConfigError extends Error {
  constructor(
    readonly key: string,
    readonly reason: string,
  ) {
    super(`invalid value for ${key}: ${reason}`);
    this.name = 'SaslConfigError';
  }
}

/** Kafka's listener prefix: the listener name in lower case. */
export function listenerPrefix(listenerName: string): string {
  return `listener.name.${listenerName.toLowerCase()}.`;
}

function mechanismPrefix(listenerName: string, mechanism: string): string {
  return `${listenerPrefix(listenerName)}${mechanism.toLowerCase()}.`;
}

/** Whether `key` is a listener-prefixed SASL key this broker reads. */
export function isListenerSaslKey(key: string): boolean {
  const m = /^listener\.name\.[^.]+\.(.+)$/.exec(key);
  if (m === null) return false;
  const rest = m[1]!;
  if (LISTENER_KEYS.has(rest)) return true;
  const dot = rest.indexOf('.');
  return dot > 0 && LISTENER_MECHANISM_KEYS.has(rest.slice(dot + 1));
}

function list(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function nonNegativeInt(key: string, value: string): number {
  const n = Number(value.trim());
  if (value.trim() === '' || !Number.isSafeInteger(n) || n < 0)
    throw new SaslConfigError(key, `'${value}' is not a non-negative whole number`);
  return n;
}

/** `get` reads a key's configured value, or its default for the unprefixed keys. */
export function buildSaslConfig(get: (key: string) => string | undefined, saslListeners: readonly string[]): SaslConfig {
  const warnings: string[] = [];
  const listeners = new Map<string, SaslListenerConfig>();
  for (const listenerName of saslListeners) listeners.set(listenerName, listenerConfig(get, listenerName, warnings));
  const delayKey = 'connection.failed.authentication.delay.ms';
  return { listeners, failedAuthenticationDelayMs: nonNegativeInt(delayKey, get(delayKey) ?? '100'), warnings };
}

function listenerConfig(get: (key: string) => string | undefined, listenerName: string, warnings: string[]): SaslListenerConfig {
  const prefixed = `${listenerPrefix(listenerName)}sasl.enabled.mechanisms`;
  const key = get(prefixed) !== undefined ? prefixed : 'sasl.enabled.mechanisms';
  const configured = list(get(key) ?? 'GSSAPI');
  const unknown = configured.filter((m) => !KNOWN_UNSERVED_MECHANISMS.has(m) && !(SERVED_MECHANISMS as readonly string[]).includes(m));
  if (unknown.length > 0)
    throw new SaslConfigError(key, `unknown SASL mechanism ${unknown.join(', ')} (served: ${SERVED_MECHANISMS.join(', ')})`);
  const mechanisms = [...new Set(configured.filter((m) => !KNOWN_UNSERVED_MECHANISMS.has(m)))];
  const unserved = configured.filter((m) => KNOWN_UNSERVED_MECHANISMS.has(m));
  if (mechanisms.length === 0) {
    throw new SaslConfigError(
      key,
      `listener ${listenerName} enables only ${configured.join(', ') || 'no mechanism'}; Sluice does not serve GSSAPI (Kerberos) or OAUTHBEARER: enable ${SERVED_MECHANISMS.join(', ')}`,
    );
  }
  if (unserved.length > 0) warnings.push(`${key}: ${unserved.join(', ')} not served by Sluice and ignored on listener ${listenerName}`);
  const jaas = new Map<string, JaasEntry>();
  const maxReauthMs = new Map<string, number>();
  for (const mechanism of mechanisms) {
    const jaasKey = `${mechanismPrefix(listenerName, mechanism)}sasl.jaas.config`;
    const text = get(jaasKey);
    if (text === undefined)
      throw new SaslConfigError(
        jaasKey,
        `required for SASL mechanism ${mechanism} on listener ${listenerName} (a broker reads no JAAS file and no unprefixed sasl.jaas.config)`,
      );
    let entry: JaasEntry;
    try {
      entry = parseJaasConfig(text);
    } catch (err) {
      if (err instanceof JaasConfigError) throw new SaslConfigError(jaasKey, err.message);
      throw err;
    }
    const module = scramMechanism(mechanism) !== undefined ? SCRAM_LOGIN_MODULE : PLAIN_LOGIN_MODULE;
    if (entry.loginModule !== module)
      throw new SaslConfigError(jaasKey, `mechanism ${mechanism} needs ${module}, not ${entry.loginModule}`);
    jaas.set(mechanism, entry);
    const reauthKeys = [
      `${mechanismPrefix(listenerName, mechanism)}connections.max.reauth.ms`,
      `${listenerPrefix(listenerName)}connections.max.reauth.ms`,
      'connections.max.reauth.ms',
    ];
    const reauthKey = reauthKeys.find((k) => get(k) !== undefined);
    maxReauthMs.set(mechanism, reauthKey === undefined ? 0 : nonNegativeInt(reauthKey, get(reauthKey)!));
  }
  const plain = jaas.get('PLAIN');
  return { listenerName, mechanisms, plainUsers: plain === undefined ? new Map() : plainUsers(plain), maxReauthMs, jaas };
}

/**
 * The mechanism and credentials this broker uses towards the other brokers' SASL listener
 * `listenerName`: `sasl.mechanism.inter.broker.protocol` and the `username`/`password` options of
 * that mechanism's JAAS entry on the listener.
 */
export function interBrokerCredentials(config: SaslConfig, listenerName: string, mechanism: string): SaslClientCredentials {
  const key = 'sasl.mechanism.inter.broker.protocol';
  const listener = config.listeners.get(listenerName);
  if (listener === undefined) throw new SaslConfigError(key, `listener ${listenerName} is not a SASL listener`);
  const entry = listener.jaas.get(mechanism);
  if (entry === undefined) throw new SaslConfigError(key, `${mechanism} is not enabled on the inter-broker listener ${listenerName}`);
  const username = entry.options.get('username');
  const password = entry.options.get('password');
  const jaasKey = `${mechanismPrefix(listenerName, mechanism)}sasl.jaas.config`;
  if (username === undefined || password === undefined)
    throw new SaslConfigError(jaasKey, 'the inter-broker mechanism needs username and password options');
  return { mechanism, username, password };
}
