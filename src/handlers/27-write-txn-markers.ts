/**
 * WriteTxnMarkers (key 27): a transaction coordinator on another broker asks this one, as the
 * partitions' leader, to write the end of a transaction (see `txn-marker-writes.ts`).
 */
import { ErrorCode } from '@sluice/protocol/errors.js';
import { WriteTxnMarkersRequest, WriteTxnMarkersResponse } from '@sluice/protocol/messages/index.js';
import { AclOperation, authorizedOnCluster } from './authorization.js';
import { clusterOf } from './cluster-context.js';
import { defineHandler } from './handler.js';
import { writeMarkersLocally } from './txn-marker-writes.js';
import { answersByTopic, flattenTopics } from './txn-partitions.js';

export const writeTxnMarkersHandler = defineHandler({
  request: WriteTxnMarkersRequest,
  response: WriteTxnMarkersResponse,
  async handle(request, ctx) {
    const c = clusterOf(ctx);
    if (!authorizedOnCluster(ctx, AclOperation.CLUSTER_ACTION)) {
      return {
        markers: request.markers.map((m) => ({
          producerId: m.producerId,
          topics: m.topics.map((t) => ({
            name: t.name,
            partitions: t.partitionIndexes.map((partitionIndex) => ({ partitionIndex, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED })),
          })),
        })),
      };
    }
    const markers = await Promise.all(
      request.markers.map(async (m) => {
        const results = await writeMarkersLocally(c, {
          producerId: m.producerId,
          producerEpoch: m.producerEpoch,
          coordinatorEpoch: m.coordinatorEpoch,
          commit: m.transactionResult,
          transactionVersion: m.transactionVersion,
          partitions: flattenTopics(
            m.topics,
            (t) => t.name,
            (t) => t.partitionIndexes,
          ),
        });
        return { producerId: m.producerId, topics: answersByTopic(results) };
      }),
    );
    return { markers };
  },
});
