/**
 * DescribeClientQuotas and AlterClientQuotas over the client entities, as Kafka 4.4 answers them
 * (ClientQuotasImage.describe, ClientQuotaControlManager): filters of entity types `user`,
 * `client-id` and `ip` matched exactly, as the default, or as any specified name, with `strict`
 * leaving out entities naming other types; alterations validated per entity with Kafka's
 * messages. Entities also hold SCRAM credentials: only quota keys are described, and an
 * alteration keeps every other key.
 */
import { isIP } from 'node:net';
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { formatQuotaValue, isQuotaKey, parseQuotaValue, quotaValueError } from './quota-configs.js';
import type { QuotaEntity, QuotaEntityConfigs } from './quota-resolution.js';

export const USER = 'user';
export const CLIENT_ID = 'client-id';
export const IP = 'ip';

export const MATCH_EXACT = 0;
export const MATCH_DEFAULT = 1;
export const MATCH_SPECIFIED = 2;

/** One part of an entity as the requests name it: its type and name, null for `<default>`. */
export interface EntityPart {
  readonly entityType: string;
  readonly entityName: string | null;
}

export interface FilterComponent {
  readonly entityType: string;
  readonly matchType: number;
  readonly match: string | null;
}

export interface DescribedQuotas {
  readonly entity: EntityPart[];
  readonly values: { key: string; value: number }[];
}

function partsOf(entity: QuotaEntity): EntityPart[] {
  const parts: EntityPart[] = [];
  if (entity.user !== undefined) parts.push({ entityType: USER, entityName: entity.user });
  if (entity.clientId !== undefined) parts.push({ entityType: CLIENT_ID, entityName: entity.clientId });
  if (entity.ip !== undefined) parts.push({ entityType: IP, entityName: entity.ip });
  return parts;
}

function invalid(message: string): KafkaError {
  return new KafkaError(ErrorCode.INVALID_REQUEST, message);
}

/** The entities matching the filter, with their quotas. Throws a `KafkaError` for a filter Kafka refuses. */
export function describeClientQuotas(
  entities: readonly QuotaEntityConfigs[],
  components: readonly FilterComponent[],
  strict: boolean,
): DescribedQuotas[] {
  const exact = new Map<string, string | null>();
  const specified = new Set<string>();
  for (const c of components) {
    if (c.entityType === '') throw invalid('Invalid empty entity type.');
    if (exact.has(c.entityType) || specified.has(c.entityType))
      throw invalid(`Entity type ${c.entityType} cannot appear more than once in the filter.`);
    if (c.entityType !== IP && c.entityType !== USER && c.entityType !== CLIENT_ID)
      throw new KafkaError(ErrorCode.UNSUPPORTED_VERSION, `Unsupported entity type ${c.entityType}`);
    if (c.matchType === MATCH_EXACT) {
      if (c.match === null) throw invalid('Request specified MATCH_TYPE_EXACT, but set match string to null.');
      exact.set(c.entityType, c.match);
    } else if (c.matchType === MATCH_DEFAULT) {
      if (c.match !== null) throw invalid('Request specified MATCH_TYPE_DEFAULT, but also specified a match string.');
      exact.set(c.entityType, null);
    } else if (c.matchType === MATCH_SPECIFIED) {
      if (c.match !== null) throw invalid('Request specified MATCH_TYPE_SPECIFIED, but also specified a match string.');
      specified.add(c.entityType);
    } else {
      throw invalid(`Unknown match type ${c.matchType}`);
    }
  }
  const names = (type: string): boolean => exact.has(type) || specified.has(type);
  if (names(IP) && (names(USER) || names(CLIENT_ID))) {
    throw invalid(
      'Invalid entity filter component combination. IP filter component should not be used with user or clientId filter component.',
    );
  }
  const described: DescribedQuotas[] = [];
  for (const { entity, configs } of entities) {
    const values = [...configs].flatMap(([key, stored]) => {
      const value = isQuotaKey(key) ? parseQuotaValue(stored) : null;
      return value === null ? [] : [{ key, value }];
    });
    if (values.length === 0) continue;
    const parts = partsOf(entity);
    const nameOf = new Map(parts.map((p) => [p.entityType, p.entityName]));
    const matches =
      [...exact].every(([type, name]) => nameOf.has(type) && nameOf.get(type) === name) &&
      [...specified].every((type) => nameOf.has(type)) &&
      // With no component at all, strict matches nothing; otherwise it leaves out entities naming more types.
      (!strict || parts.length === exact.size + specified.size);
    if (matches) described.push({ entity: parts, values });
  }
  return described;
}

export interface QuotaOp {
  readonly key: string;
  readonly value: number;
  readonly remove: boolean;
}

export interface QuotaAlteration {
  readonly entity: readonly EntityPart[];
  readonly ops: readonly QuotaOp[];
}

export type ValidatedAlteration =
  | { readonly ok: true; readonly entity: QuotaEntity; readonly changes: ReadonlyMap<string, number | null> }
  | { readonly ok: false; readonly errorCode: number; readonly errorMessage: string };

function describeEntity(parts: readonly EntityPart[]): string {
  return `ClientQuotaEntity(entries={${parts.map((p) => `${p.entityType}=${p.entityName}`).join(', ')}})`;
}

function refused(message: string): ValidatedAlteration {
  return { ok: false, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: message };
}

/** The entity the parts name, or why Kafka refuses it. */
function validateEntity(parts: readonly EntityPart[]): { entity: QuotaEntity } | { error: string } {
  if (parts.length === 0) return { error: 'Invalid empty client quota entity' };
  const seen = new Map<string, string | null>();
  for (const p of parts) {
    if (seen.has(p.entityType)) return { error: `Invalid client quota entity, duplicate entity entry ${p.entityType}` };
    if (p.entityType !== USER && p.entityType !== CLIENT_ID && p.entityType !== IP)
      return { error: `Unhandled client quota entity type: ${p.entityType}` };
    if (p.entityName === '') return { error: `Empty ${p.entityType} not supported` };
    seen.set(p.entityType, p.entityName);
  }
  if (seen.has(IP)) {
    if (seen.size > 1) return { error: 'Invalid quota entity combination, IP entity shouldnot be combined with User or ClientId' };
    const ip = seen.get(IP)!;
    // Kafka also accepts a resolvable host name; Sluice takes addresses only (no DNS on the request path).
    if (ip !== null && isIP(ip) === 0) return { error: `${ip} is not a valid IP or resolvable host.` };
    return { entity: { ip } };
  }
  const entity: { user?: string | null; clientId?: string | null } = {};
  if (seen.has(USER)) entity.user = seen.get(USER)!;
  if (seen.has(CLIENT_ID)) entity.clientId = seen.get(CLIENT_ID)!;
  return { entity };
}

/**
 * Validates each alteration as Kafka's controller does: one failing alteration is refused alone,
 * the others apply. A second alteration of the same entity, or one naming a key twice, is refused.
 */
export function validateAlterations(alterations: readonly QuotaAlteration[]): ValidatedAlteration[] {
  const seenEntities = new Set<string>();
  return alterations.map((alteration) => {
    const name = describeEntity(alteration.entity);
    const keys = new Set<string>();
    let duplicateKey = false;
    for (const op of alteration.ops) {
      if (keys.has(op.key)) duplicateKey = true;
      keys.add(op.key);
    }
    const repeated = seenEntities.has(name);
    seenEntities.add(name);
    if (duplicateKey || repeated) return refused(`Ignoring duplicate entity ${name}`);
    const validated = validateEntity(alteration.entity);
    if ('error' in validated) return refused(validated.error);
    const kind = validated.entity.ip !== undefined ? 'ip' : 'client';
    const changes = new Map<string, number | null>();
    for (const op of alteration.ops) {
      if (op.remove) {
        changes.set(op.key, null);
        continue;
      }
      const error = quotaValueError(kind, op.key, op.value);
      if (error !== null) return refused(error);
      changes.set(op.key, op.value);
    }
    return { ok: true, entity: validated.entity, changes };
  });
}

/** The entity's configs after the changes (null removes a key); keys other than those changed are kept. */
export function applyQuotaChanges(current: ReadonlyMap<string, string>, changes: ReadonlyMap<string, number | null>): Map<string, string> {
  const next = new Map(current);
  for (const [key, value] of changes) {
    if (value === null) next.delete(key);
    else next.set(key, formatQuotaValue(key, value));
  }
  return next;
}
