/**
 * Runs handlers the way the broker does — request encoded with the generated codec, decoded by
 * the handler, response encoded and decoded again — over a real LocalController in a temp dir
 * and an in-memory PartitionAdmin that records what the handlers asked of it. The data
 * handlers' tests give it an owner that also keeps records (`memory-partitions.ts`).
 */
import { ClientEntityStore } from '../../../src/metadata/client-entity-store.js';
import { Authorizer, type AuthorizerConfig } from '../../../src/security/acl/index.js';
import { AclAdmin } from '../../../src/metadata/admin/acl-admin.js';
import { KeyedQueue } from '../../../src/common/keyed-queue.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BrokerMetrics } from '../../../src/common/metrics/broker-metrics.js';
import type { FileRegion } from '@sluice/protocol/primitives/writer.js';
import type { ShareServices } from '../../../src/handlers/share-services.js';
import { LocalController } from '../../../src/controller/local/local-controller.js';
import { LocalMetadataWriter } from '../../../src/controller/local/local-metadata-writer.js';
import type { PartitionRegistration } from '../../../src/metadata/metadata-image.js';
import { ConfigResolver } from '../../../src/metadata/config/config-resolver.js';
import { MetadataStore } from '../../../src/metadata/metadata-store.js';
import { TopicAdmin } from '../../../src/metadata/admin/topic-admin.js';
import type { ClusterContext } from '../../../src/handlers/cluster-context.js';
import { NO_RESPONSE, type RegisteredApi } from '../../../src/handlers/handler.js';
import type { MessageCodec } from '@sluice/protocol/primitives/codec-support.js';
import { Reader } from '@sluice/protocol/primitives/reader.js';
import { Writer } from '@sluice/protocol/primitives/writer.js';
import { LocalProducerIdBlocks, ProducerIdManager } from '../../../src/coordinator/producer-id-manager.js';
import { FetchPurgatory } from '../../../src/partitions/fetch-purgatory.js';
import { ProducePurgatory } from '../../../src/partitions/produce-purgatory.js';
import { FetchSessionCache } from '../../../src/partitions/fetch-session-cache.js';
import { ShareCoordinatorService } from '../../../src/coordinator/share/share-coordinator-service.js';
import { ShareStatePersister } from '../../../src/coordinator/share/share-state-routing.js';
import {
  TransactionCoordinatorService,
  type TxnMarkerWriter,
} from '../../../src/coordinator/transaction/transaction-coordinator-service.js';
import { GroupCoordinatorService } from '../../../src/coordinator/group/group-coordinator-service.js';
import type { SharePersister } from '../../../src/coordinator/share/share-state-persister.js';
import type { CoordinatorLog } from '../../../src/coordinator/runtime/coordinator-log.js';
import { Logger } from '../../../src/common/logger.js';
import { LogLevels } from '../../../src/common/log-levels.js';
import { ANONYMOUS_PRINCIPAL, type Session } from '../../../src/common/session.js';
import type {
  LogDirDescription,
  LogDirMove,
  PartitionAdmin,
  TopicConfigValues,
  TopicRef,
} from '../../../src/metadata/admin/partition-admin.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import type { PartitionData } from '../../../src/partitions/partition-data.js';

/** Admin handlers never touch groups; a call here means one reached for the group coordinators. */
const NO_GROUP_LOG: CoordinatorLog = {
  exists: () => false,
  ensureTopic: () => Promise.reject(new Error('admin handlers do not create __consumer_offsets')),
  append: () => Promise.reject(new Error('admin handlers do not append group records')),
  appendMarker: () => Promise.reject(new Error('admin handlers do not end transactions')),
  replay: () => Promise.reject(new Error('admin handlers do not replay group records')),
};

const NO_TRANSACTION_LOG: CoordinatorLog = {
  exists: () => false,
  ensureTopic: () => Promise.reject(new Error('these handlers do not create __transaction_state')),
  append: () => Promise.reject(new Error('these handlers do not append transaction records')),
  appendMarker: () => Promise.reject(new Error('these handlers do not append transaction markers')),
  replay: () => Promise.reject(new Error('these handlers do not replay transaction records')),
};

const NO_SHARE_STATE_LOG: CoordinatorLog = {
  exists: () => false,
  ensureTopic: () => Promise.reject(new Error('these handlers do not create __share_group_state')),
  append: () => Promise.reject(new Error('these handlers do not append share state records')),
  appendMarker: () => Promise.reject(new Error('__share_group_state holds no transaction markers')),
  replay: () => Promise.reject(new Error('these handlers do not replay share state records')),
};

const NO_MARKERS: TxnMarkerWriter = { write: () => Promise.reject(new Error('these handlers do not end transactions')) };

/** Admin handlers never append or read; a call here means a handler reached for data it must not touch. */
const NO_DATA: PartitionData = {
  appendMany: () => Promise.reject(new Error('admin handlers do not append')),
  readMany: () => Promise.reject(new Error('admin handlers do not read')),
  listOffset: () => Promise.reject(new Error('admin handlers do not list offsets')),
  deleteRecords: () => Promise.reject(new Error('admin handlers do not delete records')),
  offsetForLeaderEpoch: () => Promise.reject(new Error('admin handlers do not look up epochs')),
  describeProducers: () => Promise.reject(new Error('admin handlers do not describe producers')),
  writeTxnMarkers: () => Promise.reject(new Error('admin handlers do not write transaction markers')),
};

export class MemoryPartitionAdmin implements PartitionAdmin {
  readonly partitions = new Map<string, { topicId: string; config: TopicConfigValues }>();
  readonly configUpdates: Array<{ topic: string; config: TopicConfigValues }> = [];

  async createPartitions(topic: TopicRef, partitions: readonly PartitionRegistration[], config: TopicConfigValues): Promise<void> {
    for (const p of partitions) this.partitions.set(`${topic.name}-${p.partition}`, { topicId: topic.topicId, config });
  }
  async deleteTopic(topic: TopicRef, partitionCount: number): Promise<void> {
    for (let p = 0; p < partitionCount; p++) this.partitions.delete(`${topic.name}-${p}`);
  }
  async updateTopicConfig(topic: TopicRef, partitionCount: number, config: TopicConfigValues): Promise<void> {
    this.configUpdates.push({ topic: topic.name, config });
    for (let p = 0; p < partitionCount; p++) this.partitions.set(`${topic.name}-${p}`, { topicId: topic.topicId, config });
  }
  async describeLogDirs(): Promise<LogDirDescription[]> {
    const partitions = [...this.partitions.keys()].map((key) => {
      const dash = key.lastIndexOf('-');
      return { topic: key.slice(0, dash), partition: Number(key.slice(dash + 1)), sizeBytes: 100n, offsetLag: 0n, isFuture: false };
    });
    return [{ path: '/data', errorCode: 0, totalBytes: 1000n, usableBytes: 500n, partitions }];
  }
  /** Records each move; the one log dir is '/data', a hosted partition moves, another is not available. */
  readonly logDirMoves: LogDirMove[] = [];
  async alterReplicaLogDirs(moves: readonly LogDirMove[]): Promise<number[]> {
    this.logDirMoves.push(...moves);
    return moves.map((m) => {
      if (m.path !== '/data') return ErrorCode.LOG_DIR_NOT_FOUND;
      return this.partitions.has(`${m.topic}-${m.partition}`) ? ErrorCode.NONE : ErrorCode.REPLICA_NOT_AVAILABLE;
    });
  }
}

export interface Harness {
  readonly cluster: ClusterContext;
  readonly partitions: MemoryPartitionAdmin;
  readonly dir: string;
  /** A second broker start over the same directory. */
  reopen(): Harness;
  close(): void;
}

export interface HarnessOptions {
  readonly autoCreate?: boolean;
  readonly deleteEnable?: boolean;
  readonly staticSettings?: ReadonlyMap<string, string>;
  /** `__consumer_offsets` for the group handlers' tests; the admin handlers run without one. */
  readonly groupLog?: CoordinatorLog;
  /** `__share_group_state` for the share-state handlers' tests. */
  readonly shareStateLog?: CoordinatorLog;
  /** `__transaction_state` for the transaction handlers' tests. */
  readonly transactionLog?: CoordinatorLog;
  /** Where the transaction coordinator writes its markers; by default nowhere (a call fails the test's transaction). */
  readonly markers?: TxnMarkerWriter;
  /** The partitions' owner for the data handlers' tests; by default one that refuses data operations. */
  readonly partitions?: MemoryPartitionAdmin & PartitionData;
  /** Authorization on, deciding on the controller's ACLs; off by default. */
  readonly authorizer?: AuthorizerConfig;
  /** Where the group coordinator keeps share-partition state (share groups' tests). */
  readonly sharePersister?: SharePersister;
  /** Share partitions and sessions for the ShareFetch and ShareAcknowledge tests; absent by default. */
  readonly shares?: ShareServices;
}

export function harness(options: HarnessOptions = {}, dir = mkdtempSync(join(tmpdir(), 'sluice-admin-'))): Harness {
  const controller = new LocalController(
    'c1uSTeR1dAAAAAAAAAAAAA',
    {
      nodeId: 0,
      host: '127.0.0.1',
      port: 9092,
      rack: null,
      endpoints: [{ listenerName: 'PLAINTEXT', securityProtocol: 'PLAINTEXT', host: '127.0.0.1', port: 9092 }],
    },
    new MetadataStore(dir),
  );
  const configs = new ConfigResolver(options.staticSettings ?? new Map(), controller);
  const partitions = options.partitions ?? new MemoryPartitionAdmin();
  const data = options.partitions ?? NO_DATA;
  const writer = new LocalMetadataWriter(controller, partitions, configs);
  const admin = new TopicAdmin(writer, configs, partitions, {
    numPartitions: 1,
    replicationFactor: 1,
    deleteTopicEnable: options.deleteEnable ?? true,
  });
  const producerIds = new ProducerIdManager(new LocalProducerIdBlocks(dir));
  const groups = new GroupCoordinatorService({
    log: options.groupLog ?? NO_GROUP_LOG,
    numPartitions: 1,
    config: {},
    leads: () => true,
    logger: new Logger('test'),
    ...(options.sharePersister === undefined ? {} : { sharePersister: options.sharePersister }),
  });
  const shareCoordinator = new ShareCoordinatorService({
    log: options.shareStateLog ?? NO_SHARE_STATE_LOG,
    numPartitions: 1,
    config: {},
    leads: () => true,
    partitionCount: (id) => controller.image.topicById(id)?.partitionCount,
    logger: new Logger('test'),
    deleteRecords: () => Promise.reject(new Error('these handlers do not prune __share_group_state')),
    topicIds: () => controller.image.topics().map((t) => t.topicId),
  });
  return {
    cluster: {
      nodeId: 0,
      get metadata() {
        return controller.image;
      },
      admin,
      configs,
      clientEntities: new ClientEntityStore(writer),
      autoCreateTopicsEnable: options.autoCreate ?? true,
      partitions: data,
      fetchSessions: new FetchSessionCache({ maxSessions: 10 }),
      purgatory: new FetchPurgatory(),
      producePurgatory: new ProducePurgatory(),
      producerIds,
      transactionalProduces: new KeyedQueue(),
      // Built above, as a broker builds them on first use.
      loadCoordinators: async () => undefined,
      groups,
      transactions: new TransactionCoordinatorService({
        log: options.transactionLog ?? NO_TRANSACTION_LOG,
        numPartitions: 1,
        config: { markerRetryBackoffMs: 10 },
        leads: () => true,
        coordinatorEpoch: () => 0,
        producerIds,
        markers: options.markers ?? NO_MARKERS,
        offsetsPartitionFor: (groupId) => groups.partitionOf(groupId),
        logger: new Logger('test'),
      }),
      shareCoordinator,
      sharePersister: new ShareStatePersister({ nodeId: 0, local: shareCoordinator, leaderOf: () => null, peers: null }),
      membership: null,
      acls: new AclAdmin(writer),
      authorizer: options.authorizer === undefined ? null : new Authorizer(options.authorizer, () => controller.image.acls),
      ...(options.shares === undefined ? {} : { shares: options.shares }),
      brokerLoggers: new LogLevels('info'),
    },
    partitions,
    dir,
    reopen: () => harness(options, dir),
    close: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Who the harness's requests come from (Kafka's anonymous user at 127.0.0.1). */
export const TEST_SESSION: Session = {
  listenerName: 'PLAINTEXT',
  securityProtocol: 'PLAINTEXT',
  principal: ANONYMOUS_PRINCIPAL,
  clientAddress: '127.0.0.1:1',
  clientHost: '127.0.0.1',
};

/** A file range whose bytes the test holds: what the in-memory owner's reads lease. */
export interface HeldRegion extends FileRegion {
  readonly bytes: Buffer;
}

function isHeld(region: FileRegion): region is HeldRegion {
  return 'bytes' in region && Buffer.isBuffer(region.bytes);
}

/** The response's bytes with its file ranges read in, each released once read, as a connection does after sendfile. */
function responseBytes(out: Writer): Buffer {
  return Buffer.concat(
    out.finishParts().map((part) => {
      if (Buffer.isBuffer(part)) return part;
      if (!isHeld(part)) throw new Error('a response carries a file range the test cannot read');
      part.release();
      return part.bytes;
    }),
  );
}

/** The handler's decoded response to `body` at `version`, or NO_RESPONSE when it gives none (acks=0). */
export async function exchange<ReqIn, Res>(
  handler: RegisteredApi,
  request: MessageCodec<unknown, ReqIn>,
  response: MessageCodec<Res, unknown>,
  version: number,
  body: ReqIn,
  cluster: ClusterContext,
  metrics = new BrokerMetrics(),
  session: Session = TEST_SESSION,
): Promise<Res | typeof NO_RESPONSE> {
  const w = new Writer();
  request.write(w, body, version);
  const header = {
    requestApiKey: handler.apiKey,
    requestApiVersion: version,
    correlationId: 1,
    clientId: 'test',
    _unknownTaggedFields: [],
  };
  const result = await handler.invoke(new Reader(w.finish()), { header, session, supportedApis: [], cluster, metrics });
  if (result === NO_RESPONSE) return NO_RESPONSE;
  const out = new Writer();
  result(out);
  const r = new Reader(responseBytes(out));
  const decoded = response.read(r, version);
  if (r.remaining() !== 0) throw new Error('trailing bytes in response');
  return decoded;
}

export async function call<ReqIn, Res>(
  handler: RegisteredApi,
  request: MessageCodec<unknown, ReqIn>,
  response: MessageCodec<Res, unknown>,
  version: number,
  body: ReqIn,
  cluster: ClusterContext,
  metrics?: BrokerMetrics,
  session?: Session,
): Promise<Res> {
  const result = await exchange(handler, request, response, version, body, cluster, metrics, session);
  if (result === NO_RESPONSE) throw new Error(`${handler.name} gave no response`);
  return result;
}

export function versions(codec: MessageCodec<unknown, unknown>): number[] {
  const out: number[] = [];
  for (let v = codec.validVersions.lo; v <= codec.validVersions.hi; v++) out.push(v);
  return out;
}
