/**
 * The broker's share group settings (Kafka 4.4's `group.share.*` keys, GroupCoordinatorConfig and
 * ShareGroupConfig), typed; src/broker/config.ts builds them. The group coordinator uses the
 * membership ones; share partitions (locks, delivery counts, sessions) use the others. The
 * min/max pairs bound what a group's own `share.*` configs may set.
 */
export interface ShareGroupConfig {
  /** `group.share.max.size`. */
  readonly maxSize: number;
  /** `group.share.session.timeout.ms` and its bounds `group.share.{min,max}.session.timeout.ms`. */
  readonly sessionTimeoutMs: number;
  readonly minSessionTimeoutMs: number;
  readonly maxSessionTimeoutMs: number;
  /** `group.share.heartbeat.interval.ms` and its bounds. */
  readonly heartbeatIntervalMs: number;
  readonly minHeartbeatIntervalMs: number;
  readonly maxHeartbeatIntervalMs: number;
  /** `group.share.assignors`: exactly one. */
  readonly assignors: readonly string[];
  /** `group.share.assignment.interval.ms` and its bounds. */
  readonly assignmentIntervalMs: number;
  readonly minAssignmentIntervalMs: number;
  readonly maxAssignmentIntervalMs: number;
  /** `group.share.initialize.retry.interval.ms`. */
  readonly initializeRetryIntervalMs: number;
  /** `group.share.record.lock.duration.ms` (acquisition locks) and its bounds. */
  readonly recordLockDurationMs: number;
  readonly minRecordLockDurationMs: number;
  readonly maxRecordLockDurationMs: number;
  /** `group.share.delivery.count.limit` (records are archived after it) and its bounds. */
  readonly deliveryCountLimit: number;
  readonly minDeliveryCountLimit: number;
  readonly maxDeliveryCountLimit: number;
  /** `group.share.partition.max.record.locks` (in-flight records per share-partition) and its bounds. */
  readonly partitionMaxRecordLocks: number;
  readonly minPartitionMaxRecordLocks: number;
  readonly maxPartitionMaxRecordLocks: number;
  /** `group.share.max.share.sessions` per broker. */
  readonly maxShareSessions: number;
}

export const DEFAULT_SHARE_GROUP_CONFIG: ShareGroupConfig = {
  maxSize: 200,
  sessionTimeoutMs: 45_000,
  minSessionTimeoutMs: 45_000,
  maxSessionTimeoutMs: 60_000,
  heartbeatIntervalMs: 5_000,
  minHeartbeatIntervalMs: 5_000,
  maxHeartbeatIntervalMs: 15_000,
  assignors: ['simple'],
  assignmentIntervalMs: 1_000,
  minAssignmentIntervalMs: 0,
  maxAssignmentIntervalMs: 15_000,
  initializeRetryIntervalMs: 30_000,
  recordLockDurationMs: 30_000,
  minRecordLockDurationMs: 15_000,
  maxRecordLockDurationMs: 60_000,
  deliveryCountLimit: 5,
  minDeliveryCountLimit: 2,
  maxDeliveryCountLimit: 10,
  partitionMaxRecordLocks: 2_000,
  minPartitionMaxRecordLocks: 100,
  maxPartitionMaxRecordLocks: 4_000,
  maxShareSessions: 2_000,
};

/** A relation between two keys that Kafka's broker refuses to start without. */
export interface ShareGroupConfigProblem {
  readonly key: string;
  readonly message: string;
}

/** Kafka's cross-key checks, in its order; the first broken one, or null. */
export function shareGroupConfigProblem(c: ShareGroupConfig): ShareGroupConfigProblem | null {
  const atLeast = (key: string, value: number, otherKey: string, other: number): ShareGroupConfigProblem | null =>
    value >= other ? null : { key, message: `${key} must be greater than or equal to ${otherKey}` };
  const atMost = (key: string, value: number, otherKey: string, other: number): ShareGroupConfigProblem | null =>
    value <= other ? null : { key, message: `${key} must be less than or equal to ${otherKey}` };
  const checks: Array<() => ShareGroupConfigProblem | null> = [
    () =>
      atLeast(
        'group.share.max.heartbeat.interval.ms',
        c.maxHeartbeatIntervalMs,
        'group.share.min.heartbeat.interval.ms',
        c.minHeartbeatIntervalMs,
      ),
    () =>
      atLeast(
        'group.share.heartbeat.interval.ms',
        c.heartbeatIntervalMs,
        'group.share.min.heartbeat.interval.ms',
        c.minHeartbeatIntervalMs,
      ),
    () =>
      atMost('group.share.heartbeat.interval.ms', c.heartbeatIntervalMs, 'group.share.max.heartbeat.interval.ms', c.maxHeartbeatIntervalMs),
    () => atLeast('group.share.max.session.timeout.ms', c.maxSessionTimeoutMs, 'group.share.min.session.timeout.ms', c.minSessionTimeoutMs),
    () => atLeast('group.share.session.timeout.ms', c.sessionTimeoutMs, 'group.share.min.session.timeout.ms', c.minSessionTimeoutMs),
    () => atMost('group.share.session.timeout.ms', c.sessionTimeoutMs, 'group.share.max.session.timeout.ms', c.maxSessionTimeoutMs),
    () =>
      c.heartbeatIntervalMs < c.sessionTimeoutMs
        ? null
        : {
            key: 'group.share.heartbeat.interval.ms',
            message: 'group.share.heartbeat.interval.ms must be less than group.share.session.timeout.ms',
          },
    () =>
      c.assignors.length === 1
        ? null
        : {
            key: 'group.share.assignors',
            message: `group.share.assignors must contain exactly one assignor, but found ${c.assignors.length}`,
          },
    () =>
      atLeast(
        'group.share.max.assignment.interval.ms',
        c.maxAssignmentIntervalMs,
        'group.share.min.assignment.interval.ms',
        c.minAssignmentIntervalMs,
      ),
    () =>
      atLeast(
        'group.share.assignment.interval.ms',
        c.assignmentIntervalMs,
        'group.share.min.assignment.interval.ms',
        c.minAssignmentIntervalMs,
      ),
    () =>
      atMost(
        'group.share.assignment.interval.ms',
        c.assignmentIntervalMs,
        'group.share.max.assignment.interval.ms',
        c.maxAssignmentIntervalMs,
      ),
    () =>
      atLeast('group.share.max.delivery.count.limit', c.maxDeliveryCountLimit, 'group.share.delivery.count.limit', c.deliveryCountLimit),
    () =>
      atLeast('group.share.delivery.count.limit', c.deliveryCountLimit, 'group.share.min.delivery.count.limit', c.minDeliveryCountLimit),
    () =>
      atLeast(
        'group.share.max.partition.max.record.locks',
        c.maxPartitionMaxRecordLocks,
        'group.share.partition.max.record.locks',
        c.partitionMaxRecordLocks,
      ),
    () =>
      atLeast(
        'group.share.partition.max.record.locks',
        c.partitionMaxRecordLocks,
        'group.share.min.partition.max.record.locks',
        c.minPartitionMaxRecordLocks,
      ),
    () =>
      atLeast(
        'group.share.record.lock.duration.ms',
        c.recordLockDurationMs,
        'group.share.min.record.lock.duration.ms',
        c.minRecordLockDurationMs,
      ),
    () =>
      atLeast(
        'group.share.max.record.lock.duration.ms',
        c.maxRecordLockDurationMs,
        'group.share.record.lock.duration.ms',
        c.recordLockDurationMs,
      ),
    () => atLeast('group.share.max.share.sessions', c.maxShareSessions, 'group.share.max.size', c.maxSize),
  ];
  for (const check of checks) {
    const problem = check();
    if (problem !== null) return problem;
  }
  return null;
}
