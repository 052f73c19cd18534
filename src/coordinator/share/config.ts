/** What the share coordinator's shards need of `share.coordinator.*`. */
export interface ShareCoordinatorConfig {
  /** `share.coordinator.snapshot.update.records.per.snapshot`: ShareUpdate records between two ShareSnapshots of a share-partition. */
  readonly snapshotUpdateRecordsPerSnapshot: number;
}

export const DEFAULT_SHARE_COORDINATOR_CONFIG: ShareCoordinatorConfig = {
  snapshotUpdateRecordsPerSnapshot: 500,
};
