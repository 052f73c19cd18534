/**
 * The cluster's features (KIP-584): which levels of each feature this broker supports, the levels
 * the cluster has finalized, and Kafka's validation of an UpdateFeatures request. The finalized
 * levels live in the metadata (single broker: its metadata file; cluster: the `/feature` znode,
 * whose ZooKeeper version is the epoch), and behaviour follows them: `transaction.version` 2 bumps
 * the producer epoch at every transaction end (KIP-890), `group.version` 1 serves the consumer
 * group protocol (KIP-848), `share.version` 1 or more serves share groups (KIP-932).
 *
 * `streams.version` is not listed: Sluice does not serve streams groups (KIP-1071). The KRaft
 * features (`metadata.version`, `kraft.version`, `eligible.leader.replicas.version`) belong to the
 * KRaft metadata log, which a ZooKeeper-coordinated cluster does not have.
 */
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';

export const GROUP_VERSION = 'group.version';
export const SHARE_VERSION = 'share.version';
export const TRANSACTION_VERSION = 'transaction.version';

export interface FeatureRange {
  readonly minVersion: number;
  readonly maxVersion: number;
}

export interface SupportedFeature extends FeatureRange {
  readonly name: string;
  /** The level a new cluster starts at: Kafka 4.4's latest production level. */
  readonly defaultLevel: number;
}

/** By name, as Kafka lists them. */
export const SUPPORTED_FEATURES: readonly SupportedFeature[] = [
  { name: GROUP_VERSION, minVersion: 0, maxVersion: 1, defaultLevel: 1 },
  { name: SHARE_VERSION, minVersion: 0, maxVersion: 2, defaultLevel: 2 },
  { name: TRANSACTION_VERSION, minVersion: 0, maxVersion: 2, defaultLevel: 2 },
];

/** The finalized levels (a feature at level 0 is absent, as Kafka drops it) and the epoch of their last change. */
export interface FinalizedFeatures {
  readonly levels: ReadonlyMap<string, number>;
  readonly epoch: bigint;
}

export const DEFAULT_FINALIZED_FEATURES: FinalizedFeatures = {
  levels: new Map(SUPPORTED_FEATURES.filter((f) => f.defaultLevel > 0).map((f) => [f.name, f.defaultLevel])),
  epoch: 0n,
};

/** The finalized level of `name`, 0 when it is not finalized. */
export function featureLevel(features: FinalizedFeatures, name: string): number {
  return features.levels.get(name) ?? 0;
}

/** This broker's supported ranges, as it registers them in ZooKeeper. */
export function supportedRanges(): Record<string, FeatureRange> {
  return Object.fromEntries(SUPPORTED_FEATURES.map((f) => [f.name, { minVersion: f.minVersion, maxVersion: f.maxVersion }]));
}

/** UpdateFeatures' UpgradeType (v1+; v0 requests carry the default, UPGRADE). */
export const UpgradeType = { UPGRADE: 1, SAFE_DOWNGRADE: 2, UNSAFE_DOWNGRADE: 3 } as const;

export interface FeatureUpdate {
  readonly feature: string;
  readonly level: number;
  readonly upgradeType: number;
}

/** Another broker's supported ranges, by broker id, which a new level must also fall within. */
export type PeerSupport = ReadonlyMap<number, Readonly<Record<string, FeatureRange>>>;

/**
 * The levels after `updates`, validated as Kafka's controller does, all or nothing: the first
 * update that fails fails the request with INVALID_UPDATE_VERSION. A level of 0 removes the
 * feature. Safe and unsafe downgrades are alike here: only `metadata.version` tells them apart.
 */
export function applyFeatureUpdates(
  current: ReadonlyMap<string, number>,
  updates: readonly FeatureUpdate[],
  peers: PeerSupport = new Map(),
): Map<string, number> {
  const next = new Map(current);
  // As Kafka, the updates are keyed by feature name: a repeated name counts once, with its last entry.
  const byName = new Map(updates.map((u) => [u.feature, u]));
  for (const u of byName.values()) {
    const reason = refusal(u, current.get(u.feature) ?? 0, peers);
    if (reason !== null) {
      throw new KafkaError(
        ErrorCode.INVALID_UPDATE_VERSION,
        `The update failed for all features since the following feature had an error: Invalid update version ${u.level} for feature ${u.feature}. ${reason}`,
      );
    }
    if (u.level === 0) next.delete(u.feature);
    else next.set(u.feature, u.level);
  }
  return next;
}

function refusal(u: FeatureUpdate, currentLevel: number, peers: PeerSupport): string | null {
  if (
    u.upgradeType !== UpgradeType.UPGRADE &&
    u.upgradeType !== UpgradeType.SAFE_DOWNGRADE &&
    u.upgradeType !== UpgradeType.UNSAFE_DOWNGRADE
  ) {
    return 'The broker does not support the given upgrade type.';
  }
  if (u.level < 0) return 'A feature version cannot be less than 0.';
  const local = SUPPORTED_FEATURES.find((f) => f.name === u.feature);
  if (local === undefined) return 'This broker does not support this feature.';
  for (const [who, range] of [
    ['This broker', local] as const,
    ...[...peers].map(([id, ranges]) => [`Broker ${id}`, ranges[u.feature] ?? DISABLED] as const),
  ]) {
    const reason = outOfRange(who, range, u.level);
    if (reason !== null) return reason;
  }
  if (u.level < currentLevel && u.upgradeType === UpgradeType.UPGRADE) {
    return "Can't downgrade the version of this feature without setting the upgrade type to either safe or unsafe downgrade.";
  }
  if (u.level > currentLevel && u.upgradeType !== UpgradeType.UPGRADE) return "Can't downgrade to a newer version.";
  return null;
}

/** What a broker that does not know a feature supports of it: level 0 alone, as in Kafka. */
const DISABLED: FeatureRange = { minVersion: 0, maxVersion: 0 };

function outOfRange(who: string, range: FeatureRange, level: number): string | null {
  if (level >= range.minVersion && level <= range.maxVersion) return null;
  return range.maxVersion === 0
    ? `${who} does not support this feature.`
    : `${who} only supports versions ${range.minVersion}-${range.maxVersion}`;
}

/** Kafka's `GroupVersion.isConsumerRebalanceProtocolSupported`: the consumer group protocol (KIP-848) is served. */
export function consumerGroupProtocolEnabled(features: FinalizedFeatures): boolean {
  return featureLevel(features, GROUP_VERSION) >= 1;
}

/** Kafka's `ShareVersion.supportsShareGroups`: share groups (KIP-932) are served. */
export function shareGroupsEnabled(features: FinalizedFeatures): boolean {
  return featureLevel(features, SHARE_VERSION) >= 1;
}

/** Kafka's `ShareVersion.supportsShareGroupDLQ`: share groups' dead-letter queues (KIP-1191) are written. */
export function shareDeadLetterQueuesEnabled(features: FinalizedFeatures): boolean {
  return featureLevel(features, SHARE_VERSION) >= 2;
}
