/**
 * ShareFetch (key 78, v1-v2, KIP-932): a share group member's fetch. In order, as Kafka's
 * handleShareFetchRequest:
 *
 * - READ on the group, then the member's share session (`ShareSessionCache`): opened at epoch 0,
 *   moved on by each later epoch (partitions added and forgotten), closed at -1.
 * - The piggybacked acknowledgements are applied first (each partition's outcome is its
 *   `acknowledgeErrorCode`); a closing request then releases what the member still holds and
 *   fetches nothing.
 * - Each partition of the session is read on this broker (its leader) from the share partition's
 *   next fetch offset, and the share partition acquires for the member up to `maxRecords` of what
 *   was read (whole batches unless v2's record-limit mode); the response sends the part of the
 *   read holding the acquired records as a file range, with the `AcquiredRecords` ranges.
 * - Long polling: while nothing is acquired, the request waits in the fetch purgatory on its
 *   partitions until an append or `maxWaitMs`. A renewal-only request (v2 `isRenewAck`) fetches
 *   nothing.
 */
import { kafkaErrorCode } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import {
  ShareFetchRequest,
  ShareFetchResponse,
  type ShareFetchRequestData,
  type ShareFetchResponseDataInput,
  type ShareFetchResponsePartitionDataInput,
} from '@sluice/protocol/messages/index.js';
import { EMPTY_BYTES } from '@sluice/protocol/primitives/codec-support.js';
import type { FileRegion } from '@sluice/protocol/primitives/writer.js';
import { CONSUMER_REPLICA_ID } from '@sluice/protocol/offset-requests.js';
import { type ReadResult } from '../partitions/partition-data.js';
import { NO_EPOCH, NO_EPOCH_CHECK, offsetOf, wireOffset } from '@sluice/protocol/common/offsets.js';
import type { AcquiredRange, SharePartition } from '../coordinator/share/partition/share-partition.js';
import type { ShareSessionPartition } from '../coordinator/share/partition/share-session-cache.js';
import type { ClusterContext } from './cluster-context.js';
import { defineHandler, type RequestContext } from './handler.js';
import {
  acknowledgePartition,
  admitShareRequest,
  partitionFinder,
  ShareLeaderHints,
  type FoundPartition,
} from './share-partition-requests.js';
import type { ShareServices } from './share-services.js';
import { logStartOf, startOffsetResolver } from './share-start-offset.js';
import { topicPartitionKey } from '@sluice/protocol/common/topic-partition.js';

/** ShareFetch v2 added RENEW acknowledgements and the record-limit acquire mode. */
const RENEW_VERSION = 2;
const RECORD_LIMIT_MODE = 1;

interface PartitionFetch {
  readonly ref: ShareSessionPartition;
  readonly found: FoundPartition;
  errorCode: number;
  acknowledgeErrorCode: number;
  records: FileRegion | null;
  acquired: AcquiredRange[];
}

function topLevelError(errorCode: number, errorMessage: string | null = null): ShareFetchResponseDataInput {
  return { errorCode, errorMessage, responses: [], nodeEndpoints: [], acquisitionLockTimeoutMs: 0 };
}

/** A consumer's read of `topic`-`partition` from `fetchOffset` (none when the share partition has nothing to read). */
async function readFrom(
  c: ClusterContext,
  topic: string,
  partition: number,
  fetchOffset: bigint | null,
  maxBytes: number,
  readCommitted: boolean,
): Promise<ReadResult | null> {
  if (fetchOffset === null) return null;
  const [read] = await c.partitions.readMany([
    {
      topic,
      partition,
      currentLeaderEpoch: NO_EPOCH_CHECK,
      fetchOffset: offsetOf(fetchOffset),
      maxBytes,
      readCommitted,
      minOneMessage: true,
      replicaId: CONSUMER_REPLICA_ID,
      lastFetchedEpoch: NO_EPOCH,
    },
  ]);
  return read!;
}

/** Acquires for the member from the batches of `region`, and the part of it that holds what was acquired; null for nothing. */
async function acquireFrom(
  shares: ShareServices,
  sp: SharePartition,
  region: FileRegion,
  request: ShareFetchRequestData,
  version: number,
  maxRecords: number,
  abortedTransactions: ReadResult['abortedTransactions'],
): Promise<{ records: FileRegion; acquired: AcquiredRange[] } | null> {
  const batches = await shares.batches.read(region, sp.acquisitionEnd);
  const acquired = sp.acquire(request.memberId!, batches, {
    maxRecords,
    strictRecordLimit: version >= RENEW_VERSION && request.shareAcquireMode === RECORD_LIMIT_MODE,
    // Share partitions count offsets as the record codec does, in bigints.
    abortedTransactions: abortedTransactions?.map((t) => ({ producerId: t.producerId, firstOffset: wireOffset(t.firstOffset) })) ?? null,
  });
  if (acquired.length === 0) return null;
  const first = acquired[0]!.firstOffset;
  const last = acquired[acquired.length - 1]!.lastOffset;
  const sent = batches.filter((b) => b.lastOffset >= first && b.firstOffset <= last);
  return { records: shares.batches.slice(region, sent[0]!.start, sent[sent.length - 1]!.end), acquired };
}

/** Reads one partition from its share partition's next fetch offset and acquires what the member may take. */
async function fetchPartition(
  c: ClusterContext,
  shares: ShareServices,
  request: ShareFetchRequestData,
  version: number,
  p: PartitionFetch,
  budget: { bytes: number; records: number },
): Promise<void> {
  if (p.found.errorCode !== ErrorCode.NONE || !('leaderEpoch' in p.found) || budget.records <= 0 || budget.bytes <= 0) return;
  const topic = p.found.topic;
  const groupId = request.groupId!;
  const config = shares.partitions.config(groupId);
  try {
    const sp = await shares.partitions.open(
      { groupId, topicId: p.ref.topicId, partition: p.ref.partition },
      p.found.leaderEpoch,
      startOffsetResolver(c, topic.name, p.ref.partition, config),
    );
    let read = await readFrom(c, topic.name, p.ref.partition, sp.nextFetchOffset(), budget.bytes, config.readCommitted);
    if (read?.errorCode === ErrorCode.OFFSET_OUT_OF_RANGE) {
      // The log lost the records before the share-partition's next offset (retention, DeleteRecords): start at the log's start.
      const logStart = await logStartOf(c, topic.name, p.ref.partition);
      if (logStart !== null && logStart > sp.start) {
        sp.moveStartTo(logStart);
        read = await readFrom(c, topic.name, p.ref.partition, sp.nextFetchOffset(), budget.bytes, config.readCommitted);
      }
    }
    if (read === null) return;
    if (read.errorCode !== ErrorCode.NONE || read.records === null) {
      read.records?.release();
      p.errorCode = read.errorCode;
      return;
    }
    const region = read.records;
    let sent: { records: FileRegion; acquired: AcquiredRange[] } | null;
    try {
      sent = await acquireFrom(shares, sp, region, request, version, budget.records, read.abortedTransactions);
    } catch (err) {
      region.release();
      throw err;
    }
    if (sent === null) {
      region.release();
      return;
    }
    p.records = sent.records;
    p.acquired = sent.acquired;
    budget.bytes -= sent.records.byteLength;
    budget.records -= sent.acquired.reduce((n, r) => n + Number(r.lastOffset - r.firstOffset + 1n), 0);
  } catch (err) {
    p.errorCode = kafkaErrorCode(err);
  }
}

function respond(c: ClusterContext, ctx: RequestContext, fetches: readonly PartitionFetch[], lockMs: number): ShareFetchResponseDataInput {
  const hints = new ShareLeaderHints(c, ctx);
  const topics = new Map<string, ShareFetchResponsePartitionDataInput[]>();
  for (const p of fetches) {
    const partitions = topics.get(p.ref.topicId) ?? [];
    topics.set(p.ref.topicId, partitions);
    partitions.push({
      partitionIndex: p.ref.partition,
      errorCode: p.errorCode,
      errorMessage: null,
      acknowledgeErrorCode: p.acknowledgeErrorCode,
      acknowledgeErrorMessage: null,
      currentLeader: hints.leader(p.errorCode, p.found.topic, p.ref.partition),
      records: p.records ?? EMPTY_BYTES,
      acquiredRecords: p.acquired.map((r) => ({ firstOffset: r.firstOffset, lastOffset: r.lastOffset, deliveryCount: r.deliveryCount })),
    });
  }
  return {
    errorCode: ErrorCode.NONE,
    errorMessage: null,
    acquisitionLockTimeoutMs: lockMs,
    responses: [...topics].map(([topicId, partitions]) => ({ topicId, partitions })),
    nodeEndpoints: hints.endpoints(),
  };
}

export const shareFetchHandler = defineHandler({
  request: ShareFetchRequest,
  response: ShareFetchResponse,
  async handle(request, ctx) {
    const admitted = admitShareRequest(ctx, request, 'ShareFetch');
    if ('refused' in admitted) return topLevelError(admitted.refused, admitted.message);
    const { c, shares, groupId, memberId } = admitted;
    const version = ctx.header.requestApiVersion;
    if (version >= RENEW_VERSION && request.shareAcquireMode !== 0 && request.shareAcquireMode !== RECORD_LIMIT_MODE) {
      return topLevelError(ErrorCode.INVALID_REQUEST, `unknown share acquire mode ${request.shareAcquireMode}`);
    }
    const named = request.topics.flatMap((t) =>
      t.partitions.map((p) => ({ ref: { topicId: t.topicId, partition: p.partitionIndex }, acks: p.acknowledgementBatches })),
    );
    const withAcks = named.filter((n) => n.acks.length > 0);
    let session;
    try {
      session = shares.sessions.forFetch(
        { groupId, memberId },
        request.shareSessionEpoch,
        ctx.session,
        named.map((n) => n.ref),
        request.forgottenTopicsData.flatMap((t) => t.partitions.map((partition) => ({ topicId: t.topicId, partition }))),
        withAcks.length > 0,
      );
    } catch (err) {
      return topLevelError(kafkaErrorCode(err));
    }

    const find = partitionFinder(ctx, c);
    const fetches = new Map<string, PartitionFetch>();
    const entry = (ref: ShareSessionPartition): PartitionFetch => {
      const id = `${ref.topicId}:${ref.partition}`;
      let p = fetches.get(id);
      if (p === undefined) {
        const found = find(ref.topicId, ref.partition);
        p = { ref, found, errorCode: found.errorCode, acknowledgeErrorCode: ErrorCode.NONE, records: null, acquired: [] };
        fetches.set(id, p);
      }
      return p;
    };
    for (const n of withAcks) {
      const p = entry(n.ref);
      p.acknowledgeErrorCode =
        p.found.errorCode !== ErrorCode.NONE
          ? p.found.errorCode
          : await acknowledgePartition(
              shares.partitions,
              groupId,
              memberId,
              n.ref.topicId,
              n.ref.partition,
              n.acks,
              version >= RENEW_VERSION,
            );
    }
    const lockMs = shares.partitions.config(groupId).recordLockDurationMs;
    if (session.final) {
      shares.sessions.remove({ groupId, memberId });
      await shares.partitions.releaseMember(groupId, memberId);
      return respond(c, ctx, [...fetches.values()], lockMs);
    }
    if (version >= RENEW_VERSION && request.isRenewAck) return respond(c, ctx, [...fetches.values()], lockMs);

    const toFetch = session.partitions.map(entry);
    const deadline = Date.now() + Math.max(0, request.maxWaitMs);
    const keys = toFetch.flatMap((p) =>
      p.found.errorCode === ErrorCode.NONE ? [topicPartitionKey(p.found.topic!.name, p.ref.partition)] : [],
    );
    for (;;) {
      const budget = { bytes: request.maxBytes, records: request.maxRecords };
      for (const p of toFetch) await fetchPartition(c, shares, request, version, p, budget);
      const ready = toFetch.some((p) => p.acquired.length > 0 || p.errorCode !== ErrorCode.NONE) || keys.length === 0;
      const left = deadline - Date.now();
      if (ready || left <= 0) break;
      const { reason } = await c.purgatory.wait(keys, left, 'highWatermark');
      if (reason === 'shutdown') break;
    }
    return respond(c, ctx, [...fetches.values()], lockMs);
  },
});
