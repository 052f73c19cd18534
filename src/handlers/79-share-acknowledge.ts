/**
 * ShareAcknowledge (key 79, v1-v2, KIP-932): a share group member's acknowledgements without a
 * fetch (ACCEPT, RELEASE, REJECT, and from v2 RENEW, which extends the records' acquisition locks).
 * It works in the member's existing share session (epoch 0 cannot open one); epoch -1 closes the
 * session after the acknowledgements and releases what the member still holds.
 */
import { kafkaErrorCode } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import {
  ShareAcknowledgeRequest,
  ShareAcknowledgeResponse,
  type ShareAcknowledgeResponseDataInput,
  type ShareAcknowledgeResponsePartitionDataInput,
} from '@sluice/protocol/messages/index.js';
import { defineHandler } from './handler.js';
import { acknowledgePartition, admitShareRequest, partitionFinder, ShareLeaderHints } from './share-partition-requests.js';

const RENEW_VERSION = 2;

function topLevelError(errorCode: number, errorMessage: string | null = null): ShareAcknowledgeResponseDataInput {
  return { errorCode, errorMessage, responses: [], nodeEndpoints: [], acquisitionLockTimeoutMs: 0 };
}

export const shareAcknowledgeHandler = defineHandler({
  request: ShareAcknowledgeRequest,
  response: ShareAcknowledgeResponse,
  async handle(request, ctx) {
    const admitted = admitShareRequest(ctx, request, 'ShareAcknowledge');
    if ('refused' in admitted) return topLevelError(admitted.refused, admitted.message);
    const { c, shares, groupId, memberId } = admitted;
    const version = ctx.header.requestApiVersion;
    let session;
    try {
      session = shares.sessions.forAcknowledge({ groupId, memberId }, request.shareSessionEpoch);
    } catch (err) {
      return topLevelError(kafkaErrorCode(err));
    }
    const find = partitionFinder(ctx, c);
    const hints = new ShareLeaderHints(c, ctx);
    const responses = [];
    for (const t of request.topics) {
      const partitions: ShareAcknowledgeResponsePartitionDataInput[] = [];
      for (const p of t.partitions) {
        const found = find(t.topicId, p.partitionIndex);
        const errorCode =
          found.errorCode !== ErrorCode.NONE
            ? found.errorCode
            : await acknowledgePartition(
                shares.partitions,
                groupId,
                memberId,
                t.topicId,
                p.partitionIndex,
                p.acknowledgementBatches,
                version >= RENEW_VERSION,
              );
        partitions.push({
          partitionIndex: p.partitionIndex,
          errorCode,
          errorMessage: null,
          currentLeader: hints.leader(errorCode, found.topic, p.partitionIndex),
        });
      }
      responses.push({ topicId: t.topicId, partitions });
    }
    if (session.final) {
      shares.sessions.remove({ groupId, memberId });
      await shares.partitions.releaseMember(groupId, memberId);
    }
    return {
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      acquisitionLockTimeoutMs: shares.partitions.config(groupId).recordLockDurationMs,
      responses,
      nodeEndpoints: hints.endpoints(),
    };
  },
});
