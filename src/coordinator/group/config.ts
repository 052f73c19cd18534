/**
 * The group coordinator's settings, named after the Kafka broker keys they come from. Defaults are
 * Kafka 4.x's.
 */
export interface GroupCoordinatorConfig {
  /** `group.min.session.timeout.ms`: a JoinGroup below it answers INVALID_SESSION_TIMEOUT. */
  minSessionTimeoutMs: number;
  /** `group.max.session.timeout.ms`: a JoinGroup above it answers INVALID_SESSION_TIMEOUT. */
  maxSessionTimeoutMs: number;
  /** `group.initial.rebalance.delay.ms`: how long the first rebalance of an Empty group waits for more members. */
  initialRebalanceDelayMs: number;
  /** `group.max.size` (classic groups). */
  maxGroupSize: number;
  /** `offsets.retention.minutes`, in milliseconds. */
  offsetsRetentionMs: number;
  /** `offsets.retention.check.interval.ms`: how often expired offsets and empty groups are swept. */
  offsetsRetentionCheckIntervalMs: number;
  /** `offset.metadata.max.bytes`: longer commit metadata answers OFFSET_METADATA_TOO_LARGE. */
  offsetMetadataMaxBytes: number;
  /**
   * How long a brand-new member's parked JoinGroup may wait (Kafka's fixed 5 minutes): a client that
   * gave up and retried would otherwise leave a defunct member in the rebalance for ever.
   */
  newMemberJoinTimeoutMs: number;
  /** `group.consumer.heartbeat.interval.ms`: how often KIP-848 members are told to heartbeat. */
  consumerGroupHeartbeatIntervalMs: number;
  /** `group.consumer.session.timeout.ms`: a KIP-848 member silent this long is fenced. */
  consumerGroupSessionTimeoutMs: number;
  /** `group.consumer.max.size`. */
  consumerGroupMaxSize: number;
  /** `group.consumer.assignors`: the server-side assignors; the first is the default. */
  consumerGroupAssignors: readonly string[];
  /** `group.share.heartbeat.interval.ms`: how often share group members are told to heartbeat (a group's `share.heartbeat.interval.ms` overrides it). */
  shareGroupHeartbeatIntervalMs: number;
  /** `group.share.session.timeout.ms`: a share group member silent this long is fenced (a group's `share.session.timeout.ms` overrides it). */
  shareGroupSessionTimeoutMs: number;
  /** `group.share.max.size`. */
  shareGroupMaxSize: number;
  /** `group.share.assignors`: exactly one, `simple`. */
  shareGroupAssignors: readonly string[];
  /** `group.share.initialize.retry.interval.ms`: when an unanswered share-partition initialization is sent again. */
  shareGroupInitializeRetryIntervalMs: number;
  /**
   * What a group's config resource overrides (IncrementalAlterConfigs on GROUP), read on every
   * heartbeat so a change applies live; absent fields fall back to the settings above.
   */
  groupOverrides: (groupId: string) => GroupOverrides;
}

/**
 * The membership keys of a GROUP config resource: `consumer.session.timeout.ms`,
 * `consumer.heartbeat.interval.ms` (KIP-848 groups), `share.session.timeout.ms`,
 * `share.heartbeat.interval.ms` (share groups).
 */
export interface GroupOverrides {
  readonly consumerSessionTimeoutMs?: number;
  readonly consumerHeartbeatIntervalMs?: number;
  readonly shareSessionTimeoutMs?: number;
  readonly shareHeartbeatIntervalMs?: number;
}

export const DEFAULT_GROUP_COORDINATOR_CONFIG: Readonly<GroupCoordinatorConfig> = {
  minSessionTimeoutMs: 6_000,
  maxSessionTimeoutMs: 1_800_000,
  initialRebalanceDelayMs: 3_000,
  maxGroupSize: 2_147_483_647,
  offsetsRetentionMs: 7 * 24 * 60 * 60 * 1000,
  offsetsRetentionCheckIntervalMs: 600_000,
  offsetMetadataMaxBytes: 4096,
  newMemberJoinTimeoutMs: 300_000,
  consumerGroupHeartbeatIntervalMs: 5_000,
  consumerGroupSessionTimeoutMs: 45_000,
  consumerGroupMaxSize: 2_147_483_647,
  consumerGroupAssignors: ['uniform', 'range'],
  shareGroupHeartbeatIntervalMs: 5_000,
  shareGroupSessionTimeoutMs: 45_000,
  shareGroupMaxSize: 200,
  shareGroupAssignors: ['simple'],
  shareGroupInitializeRetryIntervalMs: 30_000,
  groupOverrides: () => ({}),
};
