/**
 * Produce (key 0): appends each partition's record batch on the partition's owner and answers
 * with the assigned base offset. acks=0 requests get no response at all; when one of their
 * partitions fails, the connection is closed instead, which is how Kafka tells such a producer.
 * The partition's replica appends as leader with its own leader epoch and refuses acks=-1 while
 * its ISR is smaller than `min.insync.replicas` (NOT_ENOUGH_REPLICAS). An acks=-1 append its
 * followers have yet to fetch waits in the produce purgatory, up to the request's timeout, until
 * the high watermark passes it; every partition of the request is answered together, in request
 * order. Transactional batches need the request's transactional id and one producer; one that
 * would open its producer's transaction in a partition is verified with the transaction
 * coordinator first (KIP-890, see `txn-verification.ts`) — the partition says so, and the handler
 * appends it again once verified. Versions 0-2 are advertised but not served, as in Kafka 4.
 * Client quotas: the request's bytes count against `producer_byte_rate` and its handler time
 * against `request_percentage` (not for acks=0, as Kafka exempts it); the larger throttle goes in
 * `throttle_time_ms` and mutes the connection.
 */
import { wireOffset } from '@sluice/protocol/common/offsets.js';
import type { BrokerMetrics } from '../common/metrics/broker-metrics.js';
import type { ClientProduceStats } from '../common/metrics/client-produce-metrics.js';
import type { RequestQuotas } from '../quota/client-quotas.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import {
  ProduceRequest,
  ProduceResponse,
  type ProduceRequestPartitionProduceData,
  type ProduceResponsePartitionProduceResponseInput,
  type ProduceResponseTopicProduceResponseInput,
} from '@sluice/protocol/messages/index.js';
import {
  BatchLayout,
  compressionCodecId,
  isTransactional,
  readInt64,
  timestampTypeOf,
  TimestampType,
} from '@sluice/protocol/records/index.js';
import type { TopicImage } from '../metadata/metadata-image.js';
import type { AppendReply, AppendRequest } from '../partitions/partition-data.js';
import { AclOperation, authorized, authorizedNames, ResourceType } from './authorization.js';
import { clusterOf, type ClusterContext } from './cluster-context.js';
import { CloseConnection, defineHandler, NO_RESPONSE } from './handler.js';
import { listedPartitionError, mergePartitions } from './partition-lookup.js';
import { isMoved, LeaderHints } from './leader-hints.js';
import { produceSupport, verifyTransactionalPartitions } from './txn-verification.js';

/** KIP-951: Produce answers carry the current leader from v10. */
const LEADER_HINT_VERSION = 10;

function failed(index: number, errorCode: number, errorMessage: string | null = null): ProduceResponsePartitionProduceResponseInput {
  return { index, errorCode, errorMessage, baseOffset: -1n, logAppendTimeMs: -1n, logStartOffset: -1n };
}

function batchIsTransactional(records: Buffer): boolean {
  return records.length >= BatchLayout.RECORDS_OFFSET && isTransactional(records.readInt16BE(BatchLayout.ATTRIBUTES_OFFSET));
}

const NOTHING_REFUSED: ReadonlyMap<number, number> = new Map();

function producerOf(records: Buffer): { producerId: bigint; producerEpoch: number } {
  return {
    producerId: records.readBigInt64BE(BatchLayout.PRODUCER_ID_OFFSET),
    producerEpoch: records.readInt16BE(BatchLayout.PRODUCER_EPOCH_OFFSET),
  };
}

/**
 * Which appends are refused before they reach their logs, by index, for their transactional
 * batches: without a transactional id every partition is refused (as Kafka answers the whole
 * request), and so when the principal may not WRITE the transactional id, and with batches of
 * more than one producer.
 */
function transactionalRefusals(
  transactionalId: string | null,
  mayWrite: boolean,
  entries: readonly AppendRequest[],
  transactional: readonly number[],
): ReadonlyMap<number, number> {
  const refuseAll = (errorCode: number): Map<number, number> => new Map(entries.map((_, i) => [i, errorCode]));
  if (transactionalId === null || !mayWrite) return refuseAll(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
  const producers = new Set(
    transactional.map((i) => {
      const { producerId, producerEpoch } = producerOf(entries[i]!.records);
      return `${producerId}:${producerEpoch}`;
    }),
  );
  return producers.size > 1 ? refuseAll(ErrorCode.INVALID_PRODUCER_ID_MAPPING) : NOTHING_REFUSED;
}

/**
 * A request's appends when it carries transactional batches. Those a partition refused until
 * verified (KIP-890: their batch would open the producer's transaction there) wait for the
 * transaction coordinator to confirm (or, for a version-2 producer, add) their partitions; the
 * confirmed ones are appended again, verified, the others keep the coordinator's error. Replies
 * in the order of `appends`.
 */
async function appendTransactional(
  c: ClusterContext,
  transactionalId: string,
  appends: readonly AppendRequest[],
  version: number,
): Promise<AppendReply[]> {
  const replies = await c.partitions.appendMany(appends);
  // Only a transactional batch opening its transaction in a partition waits for the coordinator.
  const waiting = replies.flatMap((r, i) => (r.needsVerification ? [i] : []));
  if (waiting.length === 0) return replies;
  const refs = waiting.map((i) => ({ topic: appends[i]!.topic, partition: appends[i]!.partition }));
  const refused = await verifyTransactionalPartitions(
    c,
    { transactionalId, ...producerOf(appends[waiting[0]!]!.records) },
    refs,
    produceSupport(version),
  );
  const verified: number[] = [];
  refs.forEach((ref, n) => {
    const errorCode = refused.get(ref);
    if (errorCode === undefined) verified.push(waiting[n]!);
    else replies[waiting[n]!] = { ...replies[waiting[n]!]!, errorCode, errorMessage: null, needsVerification: false };
  });
  if (verified.length === 0) return replies;
  const again = await c.partitions.appendMany(verified.map((i) => ({ ...appends[i]!, txnVerified: true })));
  again.forEach((reply, n) => (replies[verified[n]!] = reply));
  return replies;
}

/**
 * Each batch's CreateTime timestamps (first, max) as the client sent them, read before the
 * append: the partition's worker may stamp LogAppendTime into the batch where it lies, in the
 * request frame. -1, -1 for a batch with LogAppendTime from the client.
 */
function clientTimestamps(records: Buffer): number[] {
  const stamps: number[] = [];
  let position = 0;
  while (position + BatchLayout.RECORDS_OFFSET <= records.length) {
    const createTime = timestampTypeOf(records.readInt16BE(position + BatchLayout.ATTRIBUTES_OFFSET)) === TimestampType.CreateTime;
    stamps.push(
      createTime ? timestampAt(records, position + BatchLayout.BASE_TIMESTAMP_OFFSET) : -1,
      createTime ? timestampAt(records, position + BatchLayout.MAX_TIMESTAMP_OFFSET) : -1,
    );
    // Not validated yet: a length that would not move on ends the walk (the append refuses the batch).
    const size = batchSize(records, position);
    if (size < BatchLayout.RECORDS_OFFSET) break;
    position += size;
  }
  return stamps;
}

function batchSize(records: Buffer, position: number): number {
  return BatchLayout.LOG_OVERHEAD + records.readInt32BE(position + BatchLayout.BATCH_LENGTH_OFFSET);
}

/**
 * Counts an appended partition's batches for /metrics; the append has validated their framing.
 * `client`: the request's client id's counts (null: the per-client breakdown is off), with the
 * batches' `clientTimestamps`; `receivedMs` the request's arrival.
 */
function countAppended(
  metrics: BrokerMetrics,
  client: ClientProduceStats | null,
  stamps: readonly number[] | null,
  receivedMs: number,
  topic: string,
  records: Buffer,
): void {
  let batch = 0;
  for (let position = 0; position + BatchLayout.RECORDS_OFFSET <= records.length; batch++) {
    const size = batchSize(records, position);
    const count = records.readInt32BE(position + BatchLayout.RECORDS_COUNT_OFFSET);
    metrics.batchAppended(topic, size, count);
    if (client !== null)
      countForClient(metrics, client, receivedMs, records, position, size, count, stamps?.[2 * batch] ?? -1, stamps?.[2 * batch + 1] ?? -1);
    position += size;
  }
}

function countForClient(
  metrics: BrokerMetrics,
  stats: ClientProduceStats,
  receivedMs: number,
  records: Buffer,
  position: number,
  size: number,
  count: number,
  first: number,
  max: number,
): void {
  // The append changes no compression bits, nor the records after the batch header.
  const codec = compressionCodecId(records.readInt16BE(position + BatchLayout.ATTRIBUTES_OFFSET));
  stats.batch(size, count, codec, first, max, receivedMs);
  if (codec !== 0 && metrics.clientProduce.sampleDue(stats)) {
    metrics.clientProduce.sampleCompression(stats, codec, records.subarray(position + BatchLayout.RECORDS_OFFSET, position + size));
  }
}

/** A batch timestamp as a number without a BigInt (ms since 1970 fit in 53 bits); -1 for none or a negative one. */
function timestampAt(buf: Buffer, offset: number): number {
  return Math.max(-1, readInt64(buf, offset));
}

/** Why a partition's batch is refused before it reaches its log, or null when it may be appended. */
function refusal(topic: TopicImage, p: ProduceRequestPartitionProduceData): ProduceResponsePartitionProduceResponseInput | null {
  if (p.index < 0 || p.index >= topic.partitionCount) return failed(p.index, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  if (p.records === null || p.records.length === 0) return failed(p.index, ErrorCode.INVALID_RECORD, 'no record batch');
  return null;
}

function appended(index: number, reply: AppendReply): ProduceResponsePartitionProduceResponseInput {
  return {
    index,
    errorCode: listedPartitionError(reply.errorCode),
    errorMessage: reply.errorMessage,
    baseOffset: wireOffset(reply.baseOffset),
    logAppendTimeMs: reply.logAppendTimeMs,
    logStartOffset: wireOffset(reply.logStartOffset),
    recordErrors: reply.recordErrors.map((e) => ({ batchIndex: e.batchIndex, batchIndexErrorMessage: e.message })),
  };
}

/** Where an appended partition's answer goes once the append replies. */
interface PendingAnswer {
  readonly answers: ProduceResponsePartitionProduceResponseInput[];
  readonly position: number;
}

/** Records the request against the produce and request quotas and answers its throttle time. */
function settleQuotas(quotas: RequestQuotas | undefined, acks: number): number {
  if (quotas === undefined) return 0;
  const bytesThrottleMs = quotas.produceThrottleMs();
  if (acks === 0) quotas.exempt();
  return quotas.throttleForLarger('Produce', bytesThrottleMs, quotas.requestThrottleMs());
}

export const produceHandler = defineHandler({
  request: ProduceRequest,
  response: ProduceResponse,
  // Kafka 4 serves Produce v3+ only, yet lists v0 in ApiVersions (KAFKA-18659): librdkafka before
  // 2.11 sends gzip, snappy and lz4 batches uncompressed unless the broker lists Produce v0. Clients
  // pick the highest common version, so none uses v0-v2; one that does has its connection closed.
  advertisedVersions: { lo: 0, hi: ProduceRequest.validVersions.hi },
  async handle(request, ctx) {
    const c = clusterOf(ctx);
    const acks = request.acks;
    const byId = ctx.header.requestApiVersion >= 13;
    const partitionBatches = request.topicData.reduce((n, t) => n + t.partitionData.length, 0);
    ctx.metrics.produceRequest(partitionBatches);
    const client = ctx.metrics.clientProduce.request(ctx.header.clientId, partitionBatches);
    const receivedMs = client === null ? 0 : Date.now();
    // Every partition of the request goes to the workers at once (one message per worker).
    const entries: AppendRequest[] = [];
    const pending: PendingAnswer[] = [];
    // As Kafka, which keys the partitions by topic-partition: a topic named twice answers once,
    // and of a partition named twice only the last copy's records are appended.
    const merged = mergePartitions(
      request.topicData,
      (t) => (byId ? t.topicId : t.name),
      (t) => t.partitionData,
      (p) => p.index,
    );
    const mayWrite = authorizedNames(ctx, AclOperation.WRITE, ResourceType.TOPIC);
    const responses: ProduceResponseTopicProduceResponseInput[] = merged.map(({ topic: t, partitions }) => {
      const topic = byId ? c.metadata.topicById(t.topicId) : c.metadata.topic(t.name);
      const answers: ProduceResponsePartitionProduceResponseInput[] = [];
      for (const { entry: p } of partitions) {
        if (acks !== 0 && acks !== 1 && acks !== -1) {
          answers.push(failed(p.index, ErrorCode.INVALID_REQUIRED_ACKS));
          continue;
        }
        // As Kafka: a topic id must resolve before its name can be authorized; a name is authorized before it is looked up.
        if (byId && topic === undefined) {
          answers.push(failed(p.index, ErrorCode.UNKNOWN_TOPIC_ID));
          continue;
        }
        if (!mayWrite(topic?.name ?? t.name)) {
          answers.push(failed(p.index, ErrorCode.TOPIC_AUTHORIZATION_FAILED));
          continue;
        }
        if (topic === undefined) {
          answers.push(failed(p.index, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION));
          continue;
        }
        const refused = refusal(topic, p);
        if (refused !== null) {
          answers.push(refused);
          continue;
        }
        // refusal() has checked that the partition carries records.
        pending.push({ answers, position: answers.length });
        entries.push({ topic: topic.name, partition: p.index, requiredAcks: acks, records: p.records! });
        // Replaced by the append's answer below.
        answers.push(failed(p.index, ErrorCode.UNKNOWN_SERVER_ERROR));
      }
      return { name: t.name, topicId: t.topicId, partitionResponses: answers };
    });
    const transactional = entries.flatMap((e, i) => (batchIsTransactional(e.records) ? [i] : []));
    const mayWriteTransactionalId =
      request.transactionalId !== null && authorized(ctx, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, request.transactionalId);
    const unverified =
      transactional.length === 0
        ? NOTHING_REFUSED
        : transactionalRefusals(request.transactionalId, mayWriteTransactionalId, entries, transactional);
    for (const [i, errorCode] of unverified) {
      const { answers, position } = pending[i]!;
      answers[position] = failed(entries[i]!.partition, errorCode);
    }
    const verified = (_: unknown, i: number): boolean => !unverified.has(i);
    const appends = unverified.size === 0 ? entries : entries.filter(verified);
    const appendAnswers = unverified.size === 0 ? pending : pending.filter(verified);
    if (appends.length > 0) {
      const stamps = client === null ? null : appends.map((e) => clientTimestamps(e.records));
      const transactionalId = transactional.length > 0 ? request.transactionalId : null;
      // Registered before the appends go: a leader may answer a wait in another op's reply before this one returns.
      const waitIds = acks === -1 ? appends.map((e) => c.producePurgatory.register(e.topic, e.partition)) : null;
      const sent =
        waitIds === null ? appends : appends.map((e, i) => ({ ...e, acksWait: { id: waitIds[i]!, timeoutMs: request.timeoutMs } }));
      let replies: AppendReply[];
      try {
        replies =
          transactionalId === null
            ? await c.partitions.appendMany(sent)
            : await c.transactionalProduces.run(transactionalId, () =>
                appendTransactional(c, transactionalId, sent, ctx.header.requestApiVersion),
              );
      } catch (err) {
        for (const id of waitIds ?? []) c.producePurgatory.cancel(id);
        throw err;
      }
      replies.forEach((reply, i) => {
        const { answers, position } = appendAnswers[i]!;
        const entry = appends[i]!;
        answers[position] = appended(entry.partition, reply);
        if (reply.errorCode === ErrorCode.NONE)
          countAppended(ctx.metrics, client, stamps?.[i] ?? null, receivedMs, entry.topic, entry.records);
      });
      if (waitIds !== null) {
        // As Kafka: the offsets stay in the answer, whatever the wait's outcome.
        const codes = await c.producePurgatory.settle(waitIds, replies, request.timeoutMs);
        codes.forEach((errorCode, i) => {
          if (errorCode === null || errorCode === ErrorCode.NONE) return;
          const { answers, position } = appendAnswers[i]!;
          answers[position] = { ...answers[position]!, errorCode, errorMessage: null };
        });
      }
    }
    const throttleTimeMs = settleQuotas(ctx.quotas, acks);
    if (acks === 0) {
      const failure = responses.flatMap((t) => t.partitionResponses ?? []).find((p) => (p.errorCode ?? 0) !== ErrorCode.NONE);
      if (failure !== undefined)
        throw new CloseConnection(`acks=0 produce failed with error ${failure.errorCode}: ${failure.errorMessage ?? ''}`);
      return NO_RESPONSE;
    }
    const moved =
      ctx.header.requestApiVersion >= LEADER_HINT_VERSION && responses.some((t) => t.partitionResponses?.some((p) => isMoved(p.errorCode)));
    if (!moved) return { responses, throttleTimeMs };
    const hints = new LeaderHints(c.metadata, ctx.session.listenerName);
    for (const t of responses) {
      const name = byId ? (c.metadata.topicById(t.topicId ?? '')?.name ?? '') : (t.name ?? '');
      for (const p of t.partitionResponses ?? []) {
        const hint = hints.hint(p.errorCode ?? ErrorCode.NONE, name, p.index ?? -1);
        if (hint !== null) p.currentLeader = hint;
      }
    }
    return { responses, throttleTimeMs, nodeEndpoints: hints.endpoints() };
  },
});
