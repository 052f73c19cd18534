/**
 * Kafka's client entities: the users, client ids and IP addresses that SCRAM credentials and
 * client quotas attach to. An entity is written as Kafka's ZooKeeper config path below /config —
 * `users/alice`, `users/alice/clients/app`, `users/<default>/clients/<default>`, `clients/app`,
 * `ips/10.0.0.1` — with names sanitized as Kafka's `Sanitizer` does, so the same string names the
 * entity in the single broker's metadata file, in ZooKeeper and in its change notifications.
 */

/** Kafka's name of the default entity of a kind (`ConfigEntityName.DEFAULT`). */
export const DEFAULT_ENTITY_NAME = '<default>';

/** Each part: undefined when the entity has no such part, null for the `<default>` of that kind. */
export interface ClientEntity {
  readonly user?: string | null;
  readonly clientId?: string | null;
  readonly ip?: string | null;
}

export interface ClientEntityConfigs {
  readonly entity: ClientEntity;
  readonly configs: ReadonlyMap<string, string>;
}

export class InvalidClientEntityError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidClientEntityError';
  }
}

/**
 * Java's URLEncoder over UTF-8 keeps letters, digits and `.-_*` and writes a space as `+`;
 * Kafka's Sanitizer then writes `+` and `*` as `%20` and `%2A`. What is left unescaped is
 * letters, digits and `.-_`: encodeURIComponent keeps `!'()*~` too, which are escaped here.
 */
export function sanitizeEntityName(name: string): string {
  return encodeURIComponent(name).replace(/[!'()*~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

export function desanitizeEntityName(name: string): string {
  try {
    return decodeURIComponent(name);
  } catch {
    throw new InvalidClientEntityError(`'${name}' is not a sanitized entity name`);
  }
}

function part(name: string | null): string {
  return name === null ? DEFAULT_ENTITY_NAME : sanitizeEntityName(name);
}

function unpart(name: string): string | null {
  return name === DEFAULT_ENTITY_NAME ? null : desanitizeEntityName(name);
}

/** The entity's config path below /config, e.g. `users/alice/clients/app`. */
export function entityPath(e: ClientEntity): string {
  if (e.ip !== undefined) {
    if (e.user !== undefined || e.clientId !== undefined)
      throw new InvalidClientEntityError('an ip entity cannot be combined with a user or client id');
    return `ips/${part(e.ip)}`;
  }
  if (e.user !== undefined) return e.clientId === undefined ? `users/${part(e.user)}` : `users/${part(e.user)}/clients/${part(e.clientId)}`;
  if (e.clientId !== undefined) return `clients/${part(e.clientId)}`;
  throw new InvalidClientEntityError('an entity needs a user, a client id or an ip');
}

export function parseEntityPath(path: string): ClientEntity {
  const segments = path.split('/');
  if (segments.some((s) => s === '')) throw new InvalidClientEntityError(`'${path}' is not a client entity path`);
  const [kind, name, sub, subName] = segments;
  if (segments.length === 2 && kind === 'users') return { user: unpart(name!) };
  if (segments.length === 2 && kind === 'clients') return { clientId: unpart(name!) };
  if (segments.length === 2 && kind === 'ips') return { ip: unpart(name!) };
  if (segments.length === 4 && kind === 'users' && sub === 'clients') return { user: unpart(name!), clientId: unpart(subName!) };
  throw new InvalidClientEntityError(`'${path}' is not a client entity path`);
}
