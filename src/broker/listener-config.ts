/**
 * Kafka's listener keys: `listeners` (NAME://host:port, ...), `listener.security.protocol.map`,
 * `advertised.listeners`, `inter.broker.listener.name` / `security.inter.broker.protocol`, and
 * the `ssl.*` keys of each TLS listener, where `listener.name.<name>.ssl.…` overrides `ssl.…`.
 * Validation follows Kafka's: listener names are case-insensitive (upper-cased), unique, mapped
 * to a protocol; ports unique (0, "pick one", excepted); advertised names must be listeners and
 * 0.0.0.0 is never advertised; the inter-broker listener must be one of them.
 */
import type { SecurityProtocol } from '../common/session.js';
import { serverTls, TlsConfigError, type ServerTls, type SslSettings } from '@sluice/protocol/common/tls-config.js';
import { splitList } from '../metadata/config/config-definitions.js';

export interface ListenerConfig {
  /** Upper-case, as Kafka normalises listener names. */
  readonly name: string;
  readonly securityProtocol: SecurityProtocol;
  /** Where to bind; 0.0.0.0 for an empty host. Port 0 picks a free port. */
  readonly host: string;
  readonly port: number;
  /** What clients are told; port 0 means "the port actually bound". */
  readonly advertisedHost: string;
  readonly advertisedPort: number;
  /** The `ssl.*` values in force on this listener (prefixed keys applied), defaults included. */
  readonly ssl: SslSettings;
  /** Built for SSL and SASL_SSL listeners; null on the others. */
  readonly tls: ServerTls | null;
}

/** What the listener keys of one broker come to. */
export interface ListenersConfig {
  readonly listeners: readonly ListenerConfig[];
  /** The listener other brokers reach this one on. */
  readonly interBrokerListener: ListenerConfig;
}

/** Raised with the key at fault; config.ts turns it into its ConfigError. */
export class ListenerConfigError extends Error {
  constructor(
    readonly key: string,
    message: string,
  ) {
    super(message);
  }
}

const PROTOCOLS: readonly SecurityProtocol[] = ['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'];
const UNADVERTISABLE_HOSTS = new Set(['0.0.0.0', '::', '']);
const ENDPOINT = /^([A-Za-z0-9_.-]+):\/\/(\[[^\]]*\]|[^:[\]]*):(\d+)$/;

interface Endpoint {
  readonly name: string;
  readonly host: string;
  readonly port: number;
}

function parseEndpoints(key: string, value: string): Endpoint[] {
  const endpoints = splitList(value).map((item) => {
    const m = ENDPOINT.exec(item);
    if (m === null) throw new ListenerConfigError(key, `'${item}' is not NAME://host:port`);
    const port = Number(m[3]);
    if (port > 65535) throw new ListenerConfigError(key, `port ${port} is out of range`);
    return { name: m[1]!.toUpperCase(), host: m[2]!.replace(/^\[|\]$/g, ''), port };
  });
  const names = endpoints.map((e) => e.name);
  const duplicate = names.find((n, i) => names.indexOf(n) !== i);
  if (duplicate !== undefined) throw new ListenerConfigError(key, `each listener must have a different name, ${duplicate} appears twice`);
  return endpoints;
}

function protocolMap(value: string): Map<string, SecurityProtocol> {
  const map = new Map<string, SecurityProtocol>();
  for (const item of splitList(value)) {
    const [name, protocol, ...rest] = item.split(':');
    if (name === undefined || protocol === undefined || rest.length > 0 || name === '') {
      throw new ListenerConfigError('listener.security.protocol.map', `'${item}' is not LISTENER_NAME:SECURITY_PROTOCOL`);
    }
    const upper = protocol.trim().toUpperCase() as SecurityProtocol;
    if (!PROTOCOLS.includes(upper))
      throw new ListenerConfigError('listener.security.protocol.map', `${protocol} is not a security protocol (${PROTOCOLS.join(', ')})`);
    map.set(name.trim().toUpperCase(), upper);
  }
  return map;
}

export const LISTENER_PREFIX = /^listener\.name\.([^.]+)\.(.+)$/;

/** The `listener.name.<listener>.<key>` keys of the settings: listener (lower-case as written) → key → value. */
function listenerOverrides(settings: ReadonlyMap<string, string>): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>();
  for (const [key, value] of settings) {
    const m = LISTENER_PREFIX.exec(key);
    if (m === null) continue;
    const forListener = out.get(m[1]!) ?? new Map<string, string>();
    forListener.set(m[2]!, value.trim());
    out.set(m[1]!, forListener);
  }
  return out;
}

/**
 * `merged` holds every broker key with defaults applied, `explicit` the keys set (listener-prefixed
 * ones among them: Kafka prefixes them with the lower-case listener name).
 */
export function buildListeners(merged: ReadonlyMap<string, string>, explicit: ReadonlyMap<string, string>): ListenersConfig {
  const overrides = listenerOverrides(explicit);
  const protocols = protocolMap(merged.get('listener.security.protocol.map') ?? '');
  const bound = parseEndpoints('listeners', merged.get('listeners') ?? '');
  if (bound.length === 0) throw new ListenerConfigError('listeners', 'at least one listener is required');
  const ports = bound.map((e) => e.port).filter((p) => p !== 0);
  const sharedPort = ports.find((p, i) => ports.indexOf(p) !== i);
  if (sharedPort !== undefined)
    throw new ListenerConfigError('listeners', `each listener must have a different port, ${sharedPort} is used twice`);
  const advertisedValue = merged.get('advertised.listeners');
  const advertised = advertisedValue === undefined ? [] : parseEndpoints('advertised.listeners', advertisedValue);
  for (const a of advertised) {
    if (!bound.some((b) => b.name === a.name)) {
      throw new ListenerConfigError(
        'advertised.listeners',
        `${a.name} is not a listener; advertised.listeners names must be among those in listeners (${bound.map((b) => b.name).join(', ')})`,
      );
    }
    if (a.port === 0) throw new ListenerConfigError('advertised.listeners', `${a.name}: port 0 cannot be advertised`);
  }
  for (const [lower] of overrides) {
    if (!bound.some((b) => b.name === lower.toUpperCase()))
      throw new ListenerConfigError(`listener.name.${lower}`, `${lower.toUpperCase()} is not a listener`);
  }
  const listeners = bound.map((b): ListenerConfig => {
    const securityProtocol = protocols.get(b.name);
    if (securityProtocol === undefined) {
      throw new ListenerConfigError('listener.security.protocol.map', `no security protocol is defined for listener ${b.name}`);
    }
    const adv = advertised.find((a) => a.name === b.name) ?? b;
    const host = b.host === '' ? '0.0.0.0' : b.host;
    if (UNADVERTISABLE_HOSTS.has(adv.host)) {
      throw new ListenerConfigError(
        'advertised.listeners',
        `${b.name}: clients cannot connect to ${adv.host === '' ? '0.0.0.0' : adv.host}; set advertised.listeners to an address they can reach (or listen on one)`,
      );
    }
    const override = overrides.get(b.name.toLowerCase());
    const ssl = sslSettings(merged, override);
    const tls = securityProtocol === 'SSL' || securityProtocol === 'SASL_SSL' ? listenerTls(b.name, ssl, override) : null;
    return { name: b.name, securityProtocol, host, port: b.port, advertisedHost: adv.host, advertisedPort: adv.port, ssl, tls };
  });
  return { listeners, interBrokerListener: interBroker(merged, explicit.has('security.inter.broker.protocol'), listeners) };
}

/** A TLS problem names the key as it was written: prefixed when the listener's own value is at fault. */
function listenerTls(name: string, ssl: SslSettings, override: ReadonlyMap<string, string> | undefined): ServerTls {
  try {
    return serverTls(ssl);
  } catch (err) {
    if (!(err instanceof TlsConfigError)) throw err;
    throw new TlsConfigError(
      override?.has(err.key) === true ? `listener.name.${name.toLowerCase()}.${err.key}` : err.key,
      `listener ${name}: ${err.reason}`,
    );
  }
}

function sslSettings(merged: ReadonlyMap<string, string>, override: ReadonlyMap<string, string> | undefined): SslSettings {
  const ssl = new Map([...merged].filter(([k]) => k.startsWith('ssl.')));
  for (const [k, v] of override ?? []) if (k.startsWith('ssl.')) ssl.set(k, v);
  return ssl;
}

/** Kafka: one of the two keys at most; the name must be a listener; the protocol names a listener of that name. */
function interBroker(merged: ReadonlyMap<string, string>, protocolSet: boolean, listeners: readonly ListenerConfig[]): ListenerConfig {
  const name = merged.get('inter.broker.listener.name');
  if (name !== undefined && protocolSet) {
    throw new ListenerConfigError(
      'inter.broker.listener.name',
      'only one of inter.broker.listener.name and security.inter.broker.protocol should be set',
    );
  }
  const wanted = (name ?? merged.get('security.inter.broker.protocol') ?? 'PLAINTEXT').toUpperCase();
  const found = listeners.find((l) => l.name === wanted);
  if (found === undefined) {
    throw new ListenerConfigError(
      name !== undefined ? 'inter.broker.listener.name' : 'security.inter.broker.protocol',
      `the inter-broker listener ${wanted} must be a listener name defined in advertised.listeners; the valid options based on the configured listeners are ${listeners.map((l) => l.name).join(',')}`,
    );
  }
  return found;
}
