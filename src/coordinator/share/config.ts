/** What the share coordinator's shards need of `share.coordinator.*`. */
export interface ShareCoordinatorConfig {
  /** `share.coordinator.snapshot.update.records.per.snapshot`: ShareUpdate records between two ShareSnapshots of a share-partition. */
  readonly snapshotUpdateRecordsPerSnapshot: number;
  /** `share.coordinator.cold.partition.snapshot.interval.ms`: a share-partition whose last snapshot is this old gets a fresh one. */
  readonly coldPartitionSnapshotIntervalMs: number;
}

export const DEFAULT_SHARE_COORDINATOR_CONFIG: ShareCoordinatorConfig = {
  snapshotUpdateRecordsPerSnapshot: 500,
  coldPartitionSnapshotIntervalMs: 300_000,
};
