/**
 * Kafka's leader epoch fencing (`Partition.checkCurrentLeaderEpoch`), a pure rule so that every
 * holder of a replica's epoch — the worker's `Partition`, the handler tests' in-memory owner —
 * answers a client's epoch the same way.
 */
import { ErrorCode } from '@sluice/protocol/errors.js';
import { NO_EPOCH_CHECK, type LeaderEpoch } from '@sluice/protocol/common/offsets.js';

/**
 * The error for a client that names `currentLeaderEpoch` to a replica at `leaderEpoch`:
 * FENCED_LEADER_EPOCH when the client is behind (its metadata is stale), UNKNOWN_LEADER_EPOCH
 * when it is ahead (the replica's is), none when they match or the client asked for no check.
 */
export function leaderEpochError(currentLeaderEpoch: LeaderEpoch, leaderEpoch: LeaderEpoch): number {
  if (currentLeaderEpoch === NO_EPOCH_CHECK || currentLeaderEpoch === leaderEpoch) return ErrorCode.NONE;
  return currentLeaderEpoch < leaderEpoch ? ErrorCode.FENCED_LEADER_EPOCH : ErrorCode.UNKNOWN_LEADER_EPOCH;
}
