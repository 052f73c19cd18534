/**
 * Which quota applies to a client, as Kafka's default quota callback decides it. Quotas attach
 * to users, client ids and user+client-id pairs, each also as `<default>`; the most specific
 * entity holding the quota key wins, in this order:
 *
 *   /config/users/<user>/clients/<client-id>     /config/users/<default>/clients/<default>
 *   /config/users/<user>/clients/<default>       /config/users/<default>
 *   /config/users/<user>                         /config/clients/<client-id>
 *   /config/users/<default>/clients/<client-id>  /config/clients/<default>
 *
 * Resolution has two steps, as in Kafka: the client's metric tags (user, client id; '' where
 * the matching entity leaves the part out) name the sensor that measures it — so every client of
 * a user with a user-level quota shares one rate — and the tags then give the limit. Each quota
 * key resolves on its own: an entity counts only for the keys it holds.
 */
import { parseQuotaValue } from './quota-configs.js';

/** The shape of a client entity (`src/metadata/client-entities.ts`): null is `<default>`, undefined absent. */
export interface QuotaEntity {
  readonly user?: string | null;
  readonly clientId?: string | null;
  readonly ip?: string | null;
}

export interface QuotaEntityConfigs {
  readonly entity: QuotaEntity;
  readonly configs: ReadonlyMap<string, string>;
}

/** Kafka's quota metric tags: '' for a part the matching entity does not name. */
export interface QuotaTags {
  readonly user: string;
  readonly clientId: string;
}

const CLIENT_ID_LEVEL = 1;
const USER_LEVEL = 2;
const USER_CLIENT_ID_LEVEL = 4;

/** `\u0000` cannot occur in a name, so it marks `<default>` and separates the parts. */
function keyOf(user: string | null | undefined, clientId: string | null | undefined): string {
  const part = (p: string | null | undefined): string => (p === undefined ? '\u0000-' : p === null ? '\u0000*' : p);
  return `${part(user)}\u0000${part(clientId)}`;
}

/** One quota key's limits over the client entities of one metadata image. */
export class QuotaLimits {
  private readonly limits = new Map<string, number>();
  /** Which levels (user, client id, both) hold the key: Kafka's quotaTypesEnabled. */
  private readonly levels: number;

  constructor(entities: readonly QuotaEntityConfigs[], key: string) {
    let levels = 0;
    for (const { entity, configs } of entities) {
      if (entity.ip !== undefined || (entity.user === undefined && entity.clientId === undefined)) continue;
      const stored = configs.get(key);
      const limit = stored === undefined ? null : parseQuotaValue(stored);
      if (limit === null) continue;
      this.limits.set(keyOf(entity.user, entity.clientId), limit);
      levels |= entity.user === undefined ? CLIENT_ID_LEVEL : entity.clientId === undefined ? USER_LEVEL : USER_CLIENT_ID_LEVEL;
    }
    this.levels = levels;
  }

  /** Whether any entity holds the key: without one, nothing is measured. */
  get enabled(): boolean {
    return this.levels !== 0;
  }

  private has(user: string | null | undefined, clientId: string | null | undefined): boolean {
    return this.limits.has(keyOf(user, clientId));
  }

  /** The sensor's tags for a client `clientId` of `user` (the principal's name). */
  tagsOf(user: string, clientId: string): QuotaTags {
    switch (this.levels) {
      case 0:
      case CLIENT_ID_LEVEL:
        return { user: '', clientId };
      case USER_LEVEL:
        return { user, clientId: '' };
      case USER_CLIENT_ID_LEVEL:
        return { user, clientId };
    }
    if (this.has(user, clientId) || this.has(user, null)) return { user, clientId };
    if (this.has(user, undefined)) return { user, clientId: '' };
    if (this.has(null, clientId) || this.has(null, null)) return { user, clientId };
    if (this.has(null, undefined)) return { user, clientId: '' };
    return { user: '', clientId };
  }

  /** The limit for a sensor's tags, or null when none applies (unlimited). */
  limitOf(tags: QuotaTags): number | null {
    const { user, clientId } = tags;
    const candidates: ReadonlyArray<readonly [string | null | undefined, string | null | undefined]> =
      user !== '' && clientId !== ''
        ? [
            [user, clientId],
            [user, null],
            [null, clientId],
            [null, null],
          ]
        : user !== ''
          ? [
              [user, undefined],
              [null, undefined],
            ]
          : clientId !== ''
            ? [
                [undefined, clientId],
                [undefined, null],
              ]
            : [];
    for (const [u, c] of candidates) {
      const limit = this.limits.get(keyOf(u, c));
      if (limit !== undefined) return limit;
    }
    return null;
  }
}

/** The user name quotas know a principal by: `User:alice` is `alice`. */
export function quotaUserOf(principal: string): string {
  const colon = principal.indexOf(':');
  return colon < 0 ? principal : principal.slice(colon + 1);
}
