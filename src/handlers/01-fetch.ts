/**
 * Fetch (key 1): reads every requested partition on its owner and answers with file ranges
 * that the connection sends with sendfile (records never enter this process's memory).
 *
 * - Sessions (KIP-227): `FetchSessionCache` decides which partitions a request covers and,
 *   for incremental fetches, which answers carry news.
 * - Limits: each partition up to its `partition_max_bytes`, the response up to `max_bytes`,
 *   but always the first batch found (KIP-74), so a consumer never sticks on a large batch.
 * - Long polling: until `min_bytes` have gathered or `max_wait_ms` passes, the fetch waits in
 *   the purgatory on its partitions and reads again when one of them gets data it may read.
 * - read_committed (v4+): reads stop at the last stable offset and answer the aborted
 *   transactions overlapping them ([] for none; null for read_uncommitted, as Kafka), so the
 *   consumer drops their records; the records themselves are still sent with sendfile.
 * - Followers (a broker's replica id: `replica_id` up to v14, `replica_state.replica_id` from
 *   v15): each partition's read is bounded by the log end instead of the high watermark and
 *   records the follower's position on the leader (which may move the high watermark); a log
 *   that diverged from the leader's answers its diverging epoch (v12+) and no records. Their
 *   long polls wake on any append; their bytes are not counted as consumers' bytes out.
 * - Client quotas (consumers only): the response's record bytes count against
 *   `consumer_byte_rate` and the handler time against `request_percentage`; a throttled fetch
 *   is answered with no partitions and the throttle time (KIP-219), and reads at most what the
 *   quota window can take (Kafka's maxValueInQuotaWindow).
 */
import { leaderEpochOf, offsetOf, wireOffset } from '@sluice/protocol/common/offsets.js';
import type { BrokerMetrics } from '../common/metrics/broker-metrics.js';
import type { RequestQuotas } from '../quota/client-quotas.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { READ_COMMITTED } from '@sluice/protocol/offset-requests.js';
import {
  FetchRequest,
  FetchResponse,
  type FetchRequestData,
  type FetchResponseFetchableTopicResponseInput,
  type FetchResponsePartitionDataInput,
} from '@sluice/protocol/messages/index.js';
import { EMPTY_BYTES } from '@sluice/protocol/primitives/codec-support.js';
import type { TopicImage } from '../metadata/metadata-image.js';
import type { FetchContext, SessionPartition } from '../partitions/fetch-session-cache.js';
import { failedRead, type ReadCommand, type ReadResult } from '../partitions/partition-data.js';
import { AclOperation, authorizedNames, authorizedOnCluster, ResourceType } from './authorization.js';
import { clusterOf, type ClusterContext } from './cluster-context.js';
import { defineHandler } from './handler.js';
import { listedPartitionError, mergePartitions } from './partition-lookup.js';
import { isMoved, LeaderHints } from './leader-hints.js';
import { topicPartitionKey } from '@sluice/protocol/common/topic-partition.js';

/** KIP-951: Fetch answers carry the current leader from v12 and the leaders' endpoints from v16. */
const LEADER_HINT_VERSION = 12;
const NODE_ENDPOINTS_VERSION = 16;

/** Fetch v15 moved the replica id into `replica_state`. */
const REPLICA_STATE_VERSION = 15;

interface PartitionRead {
  readonly partition: SessionPartition;
  readonly topic: TopicImage | undefined;
  /** The read sent to the partition's owner; none for a partition refused before reading. */
  readonly command?: ReadCommand;
  readonly result: ReadResult;
}

function resolveTopic(c: ClusterContext, p: SessionPartition, byId: boolean): TopicImage | undefined {
  return byId ? c.metadata.topicById(p.topicId) : c.metadata.topic(p.topic);
}

/**
 * Reads every partition of the context once (one message per worker), keeping the response
 * within `maxBytes` (the request's, or less under a consumer byte quota). `replicaId` is the
 * fetching broker's, or negative for a consumer.
 */
async function readAll(
  c: ClusterContext,
  context: FetchContext,
  request: FetchRequestData,
  byId: boolean,
  replicaId: number,
  maxBytes: number,
  mayRead: (topic: string) => boolean,
): Promise<PartitionRead[]> {
  const reads: PartitionRead[] = [];
  const commands: ReadCommand[] = [];
  const positions: number[] = [];
  for (const partition of context.partitions) {
    const topic = resolveTopic(c, partition, byId);
    let refused: number | null = null;
    // As Kafka: a topic id must resolve before its name can be authorized; a name is authorized before it is looked up.
    if (byId && topic === undefined) refused = ErrorCode.UNKNOWN_TOPIC_ID;
    else if (!mayRead(topic?.name ?? partition.topic)) refused = ErrorCode.TOPIC_AUTHORIZATION_FAILED;
    else if (topic === undefined) refused = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
    else if (partition.partition < 0 || partition.partition >= topic.partitionCount) refused = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
    if (refused !== null || topic === undefined) {
      // Kafka answers a partition it refuses before reading with an empty aborted-transactions
      // list (the field's default), where a read's own errors carry none (null).
      reads.push({ partition, topic, result: { ...failedRead(refused ?? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION), abortedTransactions: [] } });
      continue;
    }
    const command: ReadCommand = {
      topic: topic.name,
      partition: partition.partition,
      currentLeaderEpoch: leaderEpochOf(partition.params.currentLeaderEpoch),
      fetchOffset: offsetOf(partition.params.fetchOffset),
      maxBytes: Math.max(0, Math.min(partition.params.partitionMaxBytes, maxBytes)),
      readCommitted: request.isolationLevel === READ_COMMITTED,
      minOneMessage: true,
      replicaId,
      lastFetchedEpoch: leaderEpochOf(partition.params.lastFetchedEpoch),
    };
    positions.push(reads.length);
    reads.push({ partition, topic, command, result: failedRead(ErrorCode.UNKNOWN_SERVER_ERROR) });
    commands.push(command);
  }
  if (commands.length > 0) {
    const results = await c.partitions.readMany(commands);
    results.forEach((result, n) => {
      const at = positions[n]!;
      const errorCode = listedPartitionError(result.errorCode);
      reads[at] = { ...reads[at]!, result: errorCode === result.errorCode ? result : { ...result, errorCode } };
    });
  }
  return keepWithin(reads, maxBytes);
}

/**
 * Each read was allowed a whole first batch; keeps the response to `maxBytes` in request order,
 * letting only the first partition with data exceed it (KIP-74). What is dropped is released.
 */
function keepWithin(reads: readonly PartitionRead[], maxBytes: number): PartitionRead[] {
  let total = 0;
  return reads.map((r) => {
    const records = r.result.records;
    if (records === null) return r;
    if (total > 0 && total + records.byteLength > maxBytes) {
      records.release();
      return { ...r, result: { ...r.result, records: null } };
    }
    total += records.byteLength;
    return r;
  });
}

function keyOf(command: ReadCommand): string {
  return topicPartitionKey(command.topic, command.partition);
}

/**
 * The reads a fetch that found nothing parks with: the next append to one of its partitions
 * does that partition's read on the worker and wakes the fetch with the result.
 */
function parkedReads(reads: readonly PartitionRead[]): Map<string, ReadCommand> {
  const byKey = new Map<string, ReadCommand>();
  for (const r of reads) if (r.command !== undefined) byKey.set(keyOf(r.command), r.command);
  return byKey;
}

/**
 * The fetch's reads after a wake that brought some partitions' reads along: those replace the
 * partitions' earlier (empty) ones, the rest stand as read, without records (their leases, if
 * any, were released on parking). Reads that match no partition are released.
 */
function withWakeReads(reads: readonly PartitionRead[], woken: ReadonlyMap<string, ReadResult>, maxBytes: number): PartitionRead[] {
  const unused = new Map(woken);
  const merged = reads.map((r) => {
    const key = r.command === undefined ? undefined : keyOf(r.command);
    const result = key === undefined ? undefined : unused.get(key);
    if (result !== undefined) {
      unused.delete(key!);
      return { ...r, result };
    }
    return r.result.records === null ? r : { ...r, result: { ...r.result, records: null } };
  });
  for (const result of unused.values()) result.records?.release();
  return keepWithin(merged, maxBytes);
}

function bytesOf(reads: readonly PartitionRead[]): number {
  return reads.reduce((sum, r) => sum + (r.result.records?.byteLength ?? 0), 0);
}

function releaseAll(reads: readonly PartitionRead[]): void {
  for (const r of reads) r.result.records?.release();
}

function respond(
  context: FetchContext,
  reads: readonly PartitionRead[],
  byId: boolean,
  fromReplica: boolean,
  metrics: BrokerMetrics,
): FetchResponseFetchableTopicResponseInput[] {
  const topics = new Map<string, FetchResponseFetchableTopicResponseInput & { partitions: FetchResponsePartitionDataInput[] }>();
  for (const r of reads) {
    const highWatermark = wireOffset(r.result.highWatermark);
    const lastStableOffset = wireOffset(r.result.lastStableOffset);
    const logStartOffset = wireOffset(r.result.logStartOffset);
    const include = context.include(r.partition, {
      errorCode: r.result.errorCode,
      highWatermark,
      lastStableOffset,
      logStartOffset,
      recordBytes: r.result.records?.byteLength ?? 0,
      diverged: r.result.divergingEpoch !== null,
    });
    if (!include) {
      r.result.records?.release();
      continue;
    }
    if (r.result.records !== null && !fromReplica) metrics.bytesFetched(r.partition.topic, r.result.records.byteLength);
    const key = byId ? r.partition.topicId : r.partition.topic;
    let topic = topics.get(key);
    if (topic === undefined) {
      topic = { topic: r.partition.topic, topicId: r.partition.topicId, partitions: [] };
      topics.set(key, topic);
    }
    const answer: FetchResponsePartitionDataInput = {
      partitionIndex: r.partition.partition,
      errorCode: r.result.errorCode,
      highWatermark,
      lastStableOffset,
      logStartOffset,
      abortedTransactions:
        r.result.abortedTransactions?.map((t) => ({ producerId: t.producerId, firstOffset: wireOffset(t.firstOffset) })) ?? null,
      preferredReadReplica: -1,
      records: r.result.records ?? EMPTY_BYTES,
    };
    // Only a fetch naming a last fetched epoch (v12+) can diverge, so the field always fits the version.
    const diverging = r.result.divergingEpoch;
    if (diverging !== null) answer.divergingEpoch = { epoch: diverging.epoch, endOffset: wireOffset(diverging.endOffset) };
    topic.partitions.push(answer);
  }
  return [...topics.values()];
}

/**
 * Records a consumer's fetch against its byte and request quotas and answers the throttle time.
 * A throttled fetch is answered empty (KIP-219), so its bytes are taken back from the byte rate.
 */
function settleQuotas(quotas: RequestQuotas, responseBytes: number): number {
  const requestThrottleMs = quotas.requestThrottleMs();
  const bytesThrottleMs = quotas.fetchThrottleMs(responseBytes);
  const throttleTimeMs = quotas.throttleForLarger('Fetch', bytesThrottleMs, requestThrottleMs);
  if (throttleTimeMs > 0) quotas.unrecordFetch(responseBytes);
  return throttleTimeMs;
}

export const fetchHandler = defineHandler({
  request: FetchRequest,
  response: FetchResponse,
  async handle(request, ctx) {
    const c = clusterOf(ctx);
    const byId = ctx.header.requestApiVersion >= 13;
    const replicaId = ctx.header.requestApiVersion >= REPLICA_STATE_VERSION ? request.replicaState.replicaId : request.replicaId;
    const fromReplica = replicaId >= 0;
    const opened = c.fetchSessions.newContext({
      sessionId: request.sessionId,
      sessionEpoch: request.sessionEpoch,
      usesTopicIds: byId,
      // As Kafka, which keys the partitions by topic-partition: a partition named twice is read
      // once, with its last copy's position, and answered once under its topic.
      partitions: mergePartitions(
        request.topics,
        (t) => (byId ? t.topicId : t.topic),
        (t) => t.partitions,
        (p) => p.partition,
      ).flatMap(({ topic: t, partitions }) =>
        partitions.map(({ entry: p }) => ({
          topicId: t.topicId,
          topic: byId ? (c.metadata.topicById(t.topicId)?.name ?? '') : t.topic,
          partition: p.partition,
          fetchOffset: p.fetchOffset,
          partitionMaxBytes: p.partitionMaxBytes,
          currentLeaderEpoch: p.currentLeaderEpoch,
          lastFetchedEpoch: p.lastFetchedEpoch,
          logStartOffset: p.logStartOffset,
        })),
      ),
      forgotten: request.forgottenTopicsData.flatMap((t) =>
        t.partitions.map((partition) => ({ topicId: t.topicId, topic: t.topic, partition })),
      ),
    });
    if (!opened.ok) return { errorCode: opened.errorCode, sessionId: 0, responses: [], throttleTimeMs: 0 };
    const context = opened.context;

    const quotas = fromReplica ? undefined : ctx.quotas;
    // Followers are exempt from client quotas; a consumer never gets more than its quota window can take at once.
    if (fromReplica) ctx.quotas?.exempt();
    const maxBytes = quotas === undefined ? request.maxBytes : Math.min(request.maxBytes, Math.floor(quotas.fetchMaxBytes()));
    // A follower's fetch needs CLUSTER_ACTION, and is refused every partition without it; a consumer's needs READ on each topic.
    const followerAllowed = fromReplica && authorizedOnCluster(ctx, AclOperation.CLUSTER_ACTION);
    const mayRead = fromReplica ? () => followerAllowed : authorizedNames(ctx, AclOperation.READ, ResourceType.TOPIC);
    const deadline = Date.now() + Math.max(0, request.maxWaitMs);
    let reads = await readAll(c, context, request, byId, replicaId, maxBytes, mayRead);
    const keys = reads.filter((r) => r.topic !== undefined).map((r) => topicPartitionKey(r.topic!.name, r.partition.partition));
    for (;;) {
      const ready =
        bytesOf(reads) >= request.minBytes ||
        reads.some((r) => r.result.errorCode !== ErrorCode.NONE || r.result.divergingEpoch !== null) ||
        keys.length === 0;
      const left = deadline - Date.now();
      if (ready || left <= 0) break;
      // A consumer that found nothing can be answered from the read done with the append that
      // wakes it; one that found some data short of min_bytes reads everything again.
      const empty = bytesOf(reads) === 0;
      releaseAll(reads);
      const wake = await c.purgatory.wait(
        keys,
        left,
        fromReplica ? 'logEnd' : 'highWatermark',
        fromReplica || !empty ? undefined : parkedReads(reads),
      );
      reads =
        wake.reads.size > 0
          ? withWakeReads(reads, wake.reads, maxBytes)
          : await readAll(c, context, request, byId, replicaId, maxBytes, mayRead);
      if (wake.reason === 'shutdown') break;
    }
    const throttleTimeMs = quotas === undefined ? 0 : settleQuotas(quotas, bytesOf(reads));
    if (throttleTimeMs > 0) {
      releaseAll(reads);
      // The session is left as it was: the client sends the same fetch again after the throttle.
      if (!context.incremental) c.fetchSessions.remove(context.sessionId);
      return { errorCode: ErrorCode.NONE, sessionId: context.incremental ? context.sessionId : 0, responses: [], throttleTimeMs };
    }
    const responses = respond(context, reads, byId, fromReplica, ctx.metrics);
    const version = ctx.header.requestApiVersion;
    const moved = version >= LEADER_HINT_VERSION && responses.some((t) => t.partitions?.some((p) => isMoved(p.errorCode)));
    if (!moved) return { errorCode: ErrorCode.NONE, sessionId: context.sessionId, responses, throttleTimeMs: 0 };
    const hints = new LeaderHints(c.metadata, ctx.session.listenerName);
    for (const t of responses) {
      for (const p of t.partitions ?? []) {
        const hint = hints.hint(p.errorCode ?? ErrorCode.NONE, t.topic ?? '', p.partitionIndex ?? -1);
        if (hint !== null) p.currentLeader = hint;
      }
    }
    return {
      errorCode: ErrorCode.NONE,
      sessionId: context.sessionId,
      responses,
      throttleTimeMs: 0,
      ...(version >= NODE_ENDPOINTS_VERSION ? { nodeEndpoints: hints.endpoints() } : {}),
    };
  },
});
