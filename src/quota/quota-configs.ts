/**
 * Kafka's client quota keys (QuotaConfig): which keys an entity may hold, their types, how
 * AlterClientQuotas validates a proposed value (Kafka 4.4's messages, all INVALID_REQUEST), and
 * how a value is written into the entity's configs — as Kafka's ZooKeeper-era brokers write it,
 * so Kafka 3.9 tools reading the same ZooKeeper understand it.
 */
export const PRODUCER_BYTE_RATE = 'producer_byte_rate';
export const CONSUMER_BYTE_RATE = 'consumer_byte_rate';
export const REQUEST_PERCENTAGE = 'request_percentage';
export const CONTROLLER_MUTATION_RATE = 'controller_mutation_rate';
export const CONNECTION_CREATION_RATE = 'connection_creation_rate';

type QuotaValueType = 'long' | 'double' | 'int';

/** Keys of user, client-id and user+client-id entities (Kafka's userAndClientQuotaConfigs). */
const CLIENT_QUOTA_KEYS: ReadonlyMap<string, QuotaValueType> = new Map([
  [PRODUCER_BYTE_RATE, 'long'],
  [CONSUMER_BYTE_RATE, 'long'],
  [REQUEST_PERCENTAGE, 'double'],
  [CONTROLLER_MUTATION_RATE, 'double'],
]);

/** Keys of ip entities (Kafka's ipConfigs). */
const IP_QUOTA_KEYS: ReadonlyMap<string, QuotaValueType> = new Map([[CONNECTION_CREATION_RATE, 'int']]);

export type EntityKind = 'client' | 'ip';

function quotaKeysOf(kind: EntityKind): ReadonlyMap<string, QuotaValueType> {
  return kind === 'ip' ? IP_QUOTA_KEYS : CLIENT_QUOTA_KEYS;
}

/** Whether `key` is a quota (and not, say, a SCRAM credential kept in the same user entity). */
export function isQuotaKey(key: string): boolean {
  return CLIENT_QUOTA_KEYS.has(key) || IP_QUOTA_KEYS.has(key);
}

const LARGEST: Record<Exclude<QuotaValueType, 'double'>, { max: number; name: string }> = {
  int: { max: 2147483647, name: 'an INT' },
  long: { max: 2 ** 63, name: 'a LONG' }, // Long.MAX_VALUE, 2^63 - 1, rounds to 2^63 as a double
};

/** Kafka's tolerance for a value of an integral key that came as a double. */
const FRACTION_EPSILON = 1e-6;

/** Why `value` may not be set for `key` on an entity of `kind`, or null when it may. */
export function quotaValueError(kind: EntityKind, key: string, value: number): string | null {
  const type = quotaKeysOf(kind).get(key);
  if (type === undefined) return `Invalid configuration key ${key}`;
  if (!Number.isFinite(value)) return `Quota ${key} must be a finite number`;
  if (value <= 0) return `Quota ${key} must be greater than 0`;
  if (type === 'double') return null;
  if (value > LARGEST[type].max) return `Proposed value for ${key} is too large for ${LARGEST[type].name}.`;
  if (Math.abs(value % 1) > FRACTION_EPSILON) return `${key} cannot be a fractional value.`;
  return null;
}

/** The stored form: integral keys as integers, doubles as Java prints them (`50.0`). */
export function formatQuotaValue(key: string, value: number): string {
  const type = CLIENT_QUOTA_KEYS.get(key) ?? IP_QUOTA_KEYS.get(key);
  if (type !== 'double') return String(Math.round(value));
  return Number.isInteger(value) ? `${value}.0` : String(value);
}

/** A stored value as a number, or null when it is not one (which enforcement then ignores). */
export function parseQuotaValue(stored: string): number | null {
  const value = Number(stored.trim());
  return stored.trim() !== '' && Number.isFinite(value) ? value : null;
}
