/**
 * What ShareFetch and ShareAcknowledge need beyond the cluster context: the share partitions this
 * broker leads (over the share coordinator's `SharePersister`), the share sessions, each group's
 * share settings, and the reading of batch headers from fetched file ranges. The composition root
 * builds them; until it does, the two handlers are not registered.
 */
import { KafkaError } from '../common/kafka-error.js';
import { ErrorCode } from '../protocol/errors.js';
import type { FetchedBatches } from '../share/log-batches.js';
import type { SharePartitionConfigSource } from '../share/share-partition-config.js';
import type { SharePartitionManager } from '../share/share-partition-manager.js';
import type { ShareSessionCache } from '../share/share-session-cache.js';
import type { ClusterContext } from './cluster-context.js';

export interface ShareServices {
  readonly partitions: SharePartitionManager;
  readonly sessions: ShareSessionCache;
  readonly configs: SharePartitionConfigSource;
  readonly batches: FetchedBatches;
}

export function sharesOf(c: ClusterContext): ShareServices {
  if (c.shares === undefined) throw new KafkaError(ErrorCode.UNSUPPORTED_VERSION, 'share groups are not enabled on this broker');
  return c.shares;
}
