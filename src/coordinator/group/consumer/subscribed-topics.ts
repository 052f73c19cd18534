/**
 * Which topics a KIP-848 member subscribes to (names plus a regular expression) and the hash of
 * their metadata that tells the coordinator when to recompute the target assignment (a topic
 * appeared, was deleted or gained partitions).
 *
 * Regexes: Kafka uses Google RE2/J with Java's `matches` (the whole name must match). Sluice
 * compiles them as JavaScript RegExps anchored at both ends: the common syntax (classes,
 * alternation, quantifiers, `.*`) behaves the same; RE2-only syntax such as `\pN` or `(?P<n>…)`
 * answers INVALID_REGULAR_EXPRESSION, and backreferences, which RE2 rejects, are accepted.
 * Internal topics match like any other, as in Kafka 4.4 (a broker-resolved regex does not skip
 * them; franz-go's Test848RegexBrokerResolves relies on it).
 */
import type { MemberSubscription } from './consumer-member.js';

export interface TopicImage {
  readonly name: string;
  readonly topicId: string;
  readonly partitionCount: number;
}

/** The cluster's topics as the coordinator needs them (the cluster's `MetadataImage` fits). */
export interface TopicsImage {
  topic(name: string): TopicImage | undefined;
  topicById(topicId: string): TopicImage | undefined;
  topics(): readonly TopicImage[];
}

const compiled = new Map<string, RegExp | null>();
/** Bounds the cache: regexes come from clients. */
const MAX_CACHED_REGEXES = 1024;

/** The compiled regex, or null when JavaScript cannot compile it. */
export function compileTopicRegex(regex: string): RegExp | null {
  let re = compiled.get(regex);
  if (re === undefined) {
    try {
      re = new RegExp(`^(?:${regex})$`);
    } catch {
      re = null;
    }
    if (compiled.size >= MAX_CACHED_REGEXES) compiled.clear();
    compiled.set(regex, re);
  }
  return re;
}

export function regexMatches(regex: string, topic: string): boolean {
  return compileTopicRegex(regex)?.test(topic) ?? false;
}

/** Names of the existing topics the member subscribes to. */
export function subscribedTopicsOf(m: MemberSubscription, image: TopicsImage): Set<string> {
  const out = new Set<string>();
  for (const name of m.subscribedTopicNames) if (image.topic(name) !== undefined) out.add(name);
  if (m.subscribedTopicRegex !== null) {
    const re = compileTopicRegex(m.subscribedTopicRegex);
    if (re !== null) for (const t of image.topics()) if (re.test(t.name)) out.add(t.name);
  }
  return out;
}

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK_64 = (1n << 64n) - 1n;

/**
 * A 64-bit FNV-1a hash of the subscribed topics' names, ids and partition counts (sorted by name).
 * Kafka 4.x stores a murmur3-based hash in the same field; the values differ, so a Kafka broker
 * loading Sluice's log recomputes the target assignment once, which is harmless.
 */
export function metadataHash(topicNames: Iterable<string>, image: TopicsImage): bigint {
  let h = FNV_OFFSET;
  for (const name of [...topicNames].sort()) {
    const t = image.topic(name);
    if (t === undefined) continue;
    for (const byte of Buffer.from(`${t.name}\u0000${t.topicId}\u0000${t.partitionCount}\n`))
      h = ((h ^ BigInt(byte)) * FNV_PRIME) & MASK_64;
  }
  // The record field is a signed int64.
  return BigInt.asIntN(64, h);
}
