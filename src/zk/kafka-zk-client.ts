/**
 * Kafka's ZooKeeper-era cluster state over one `ZkSession` (Kafka's `KafkaZkClient` and the
 * parts of `AdminZkClient` and `ZkProducerIdManager` a broker needs): broker registration,
 * controller election, topics, partition states, configs with change notifications, topic
 * deletion, producer id blocks. Layout and JSON are `kafka-zk-data.ts`'.
 *
 * Controller writes are fenced as Kafka fences them: each is a multi whose first operation checks
 * that /controller_epoch is still at the version this controller wrote when it was elected
 * (`ControllerGuard.epochZkVersion`); if another controller was elected since, nothing is written
 * and the call fails with `ControllerMovedError`.
 *
 * Requests that meet a connection loss are retried once reconnected (`ZkSession.retrying`). The
 * client lives and dies with its session: after expiry every call fails with
 * `ZkSessionExpiredError`; the owner connects a new client and registers again (the broker its
 * id, the controller candidate its election watch), as Kafka does after a new session.
 *
 * Thread: main.
 */
import { Logger } from '../common/logger.js';
import { PatternType, parseResourceType, type AccessControlEntry, type AclBinding, type ResourcePattern } from '../security/acl/index.js';
import { ChangeNotificationWatcher, CONFIG_CHANGE_FEED, type ChangeFeed, type ConfigChangeSubscription } from './config-change-watcher.js';
import {
  ACL_CHANGE_PREFIX,
  EXTENDED_ACL_CHANGES_PATH,
  LITERAL_ACL_CHANGES_PATH,
  aclChangesPath,
  aclResourcePath,
  aclRootPath,
  decodeExtendedAclChange,
  decodeLiteralAclChange,
  decodeResourceAcls,
  encodeAclChange,
  encodeResourceAcls,
  BROKER_IDS_PATH,
  CLUSTER_ID_PATH,
  CONFIG_CHANGE_PREFIX,
  CONFIG_CHANGES_PATH,
  CONTROLLER_EPOCH_PATH,
  CONTROLLER_PATH,
  DELETE_TOPICS_PATH,
  FEATURE_PATH,
  LOG_DIR_EVENT_NOTIFICATION_PATH,
  LOG_DIR_EVENT_PREFIX,
  PERSISTENT_PATHS,
  PRODUCER_ID_BLOCK_PATH,
  TOPICS_PATH,
  brokerIdPath,
  configEntityPath,
  decodeBrokerInfo,
  decodeClusterId,
  decodeController,
  decodeControllerEpoch,
  decodeEntityConfig,
  decodeLogDirEvent,
  decodePartitionState,
  decodeProducerIdBlock,
  decodeTopicAssignment,
  deleteTopicPath,
  encodeBrokerInfo,
  encodeClusterId,
  encodeConfigChange,
  encodeController,
  encodeControllerEpoch,
  encodeEntityConfig,
  encodeLogDirEvent,
  encodePartitionState,
  encodeProducerIdBlock,
  encodeTopicAssignment,
  partitionStatePath,
  topicPartitionPath,
  topicPartitionsPath,
  topicPath,
  type BrokerEndpoint,
  type BrokerInfo,
  type ConfigEntityType,
  type SupportedFeatureRange,
  GROUP_CONFIG_ENTITY,
  decodeFeatures,
  encodeFeatures,
  type LeaderAndIsrZk,
  type TopicAssignmentData,
} from './kafka-zk-data.js';
import { BrokerIdInUseError, ControllerMovedError, TopicExistsError } from './kafka-zk-errors.js';
import { registerAfterStaleSession, type RegistrationAttempt, type StaleRegistrationWait } from './stale-registration.js';
import { ZkBadVersionError, ZkCode, ZkError, ZkNodeExistsError, ZkNoNodeError } from './zk-errors.js';
import { ZkSession, type ZkSessionOptions } from './zk-session.js';
import { ANY_VERSION, type ZkOp, type ZkOpResult, type ZkStat, type ZkState, type ZkWatcher } from './zk-types.js';
import type { TopicPartition } from '@sluice/protocol/common/topic-partition.js';

/** What a controller proves with each write: its epoch and the version of /controller_epoch it wrote. */
export interface ControllerGuard {
  readonly epoch: number;
  readonly epochZkVersion: number;
}

export interface RegisteredBroker {
  readonly id: number;
  /** The first PLAINTEXT endpoint's host and port (null and -1 when it has none). */
  readonly host: string | null;
  readonly port: number;
  readonly rack: string | null;
  readonly endpoints: BrokerEndpoint[];
  /** The broker epoch: the zxid that created its registration (czxid). */
  readonly epoch: bigint;
  /** The feature levels the broker supports, as it registered them. */
  readonly features: Readonly<Record<string, SupportedFeatureRange>>;
}

export interface TopicAssignment {
  /** null for a topic created before topic ids (Kafka 2.8), which the controller then gives one. */
  readonly topicId: string | null;
  readonly partitions: Map<number, number[]>;
  readonly addingReplicas: Map<number, number[]>;
  readonly removingReplicas: Map<number, number[]>;
  /** The version of /brokers/topics/<topic>, for `setTopicAssignment`. */
  readonly zkVersion: number;
}

export interface PartitionStateEntry extends TopicPartition {
  readonly state: LeaderAndIsrZk;
}

export interface PartitionStateRead {
  readonly state: LeaderAndIsrZk;
  /** The version of the state znode (Kafka's partition epoch), for `updatePartitionState`. */
  readonly zkVersion: number;
}

/** Per partition: created (its state znode at version 0), or why not (e.g. `ZkNodeExistsError`). */
export type PartitionStateCreateResult =
  (TopicPartition & { readonly ok: true; readonly zkVersion: number }) | (TopicPartition & { readonly ok: false; readonly error: ZkError });

export interface ProducerIdBlock {
  readonly firstProducerId: bigint;
  readonly size: number;
}

/** Kafka's `ProducerIdsBlock.PRODUCER_ID_BLOCK_SIZE`. */
export const PRODUCER_ID_BLOCK_SIZE = 1000;
/** Kafka's `KafkaController.InitialControllerEpoch`: the first elected controller has epoch 1. */
const INITIAL_CONTROLLER_EPOCH = 0;
/** Rounds of a race lost to a controller that vanished at once, before giving up for this call. */
const ELECTION_ATTEMPTS = 5;
/** Compare-and-set rounds against other brokers allocating producer id blocks. */
const PRODUCER_ID_ATTEMPTS = 100;
const REARM_DELAY_MS = 100;
const MAX_PRODUCER_ID = (1n << 63n) - 1n;

const log = new Logger('kafka-zk');

function ignoreNoNode(err: unknown): void {
  if (!(err instanceof ZkNoNodeError)) throw err;
}

function ignoreNodeExists(err: unknown): void {
  if (!(err instanceof ZkNodeExistsError)) throw err;
}

function isSessionEnd(state: ZkState): boolean {
  return state === 'expired' || state === 'closed' || state === 'auth_failed';
}

export class KafkaZkClient {
  private constructor(readonly session: ZkSession) {}

  /** Connects a session (creating the chroot if missing, as Kafka's brokers do). */
  static async connect(options: ZkSessionOptions): Promise<KafkaZkClient> {
    return new KafkaZkClient(await ZkSession.connect(options));
  }

  get sessionId(): bigint {
    return this.session.sessionId;
  }

  /** Calls `listener` if the server expires the session; returns the function that stops it. */
  onSessionExpired(listener: () => void): () => void {
    return this.session.onSessionExpired(listener);
  }

  close(): Promise<void> {
    return this.session.close();
  }

  // --- Set-up ---

  /** Creates the persistent paths a broker expects (`ZkData.PersistentZkPaths`). */
  async createTopLevelPaths(): Promise<void> {
    await Promise.all(PERSISTENT_PATHS.map((path) => this.session.retrying(() => this.session.ensurePath(path))));
  }

  /** Writes /cluster/id with `proposed` unless it exists; returns the id that is there. */
  async getOrCreateClusterId(proposed: string): Promise<string> {
    try {
      await this.session.retrying(() => this.session.createRecursive(CLUSTER_ID_PATH, encodeClusterId(proposed)));
      return proposed;
    } catch (err) {
      ignoreNodeExists(err);
    }
    const existing = await this.getClusterId();
    if (existing === null) throw new ZkNoNodeError({ path: CLUSTER_ID_PATH });
    return existing;
  }

  async getClusterId(): Promise<string | null> {
    const node = await this.read(CLUSTER_ID_PATH);
    return node === null ? null : decodeClusterId(node.data);
  }

  // --- Brokers ---

  /**
   * Registers the broker as the ephemeral /brokers/ids/<id> and returns its broker epoch (the
   * znode's czxid). If another session holds the znode, waits up to `staleWait.maxWaitMs` for it
   * to go (`stale-registration.ts`: a killed broker's session outlives it), then
   * `BrokerIdInUseError`; without `staleWait`, fails at once, as Kafka does.
   */
  async registerBroker(info: BrokerInfo, staleWait?: Pick<StaleRegistrationWait, 'maxWaitMs' | 'onWait'>): Promise<bigint> {
    const path = brokerIdPath(info.id);
    const outcome = await registerAfterStaleSession({
      attempt: () => this.tryRegisterBroker(path, info),
      untilGone: (ms) => this.untilDeleted(path, ms),
      maxWaitMs: staleWait?.maxWaitMs ?? 0,
      onWait: staleWait?.onWait ?? (() => undefined),
    });
    if ('registered' in outcome) return outcome.registered;
    throw new BrokerIdInUseError(info.id, path, outcome.heldBy, this.session.sessionId);
  }

  /**
   * Created empty and filled in one multi, as Kafka's `checkedEphemeralCreate`, so that the set's
   * stat carries the czxid. A znode this session owns is an earlier attempt whose answer a
   * connection loss swallowed: that registration is the result.
   */
  private async tryRegisterBroker(path: string, info: BrokerInfo): Promise<RegistrationAttempt> {
    const data = encodeBrokerInfo(info, Date.now());
    for (;;) {
      try {
        const results = await this.session.retrying(() =>
          this.session.multi([
            { type: 'create', path, data: null, mode: 'ephemeral' },
            { type: 'set', path, data, version: 0 },
          ]),
        );
        return { registered: setStat(results[1]).czxid };
      } catch (err) {
        ignoreNodeExists(err);
      }
      const existing = await this.read(path);
      if (existing === null) continue; // It went away meanwhile: try again.
      if (existing.stat.ephemeralOwner === this.session.sessionId) return { registered: existing.stat.czxid };
      return { heldBy: existing.stat.ephemeralOwner };
    }
  }

  /** Resolves once `path` is absent or changes (its watch fires), or after `ms`. */
  private untilDeleted(path: string, ms: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(resolve, ms);
      const done = (): void => {
        clearTimeout(timer);
        resolve();
      };
      this.session
        .retrying(() => this.session.exists(path, done))
        .then(
          (stat) => {
            if (stat === null) done();
          },
          (err: unknown) => {
            clearTimeout(timer);
            reject(err);
          },
        );
    });
  }

  /** The registered brokers, by id; `watch` fires when one registers or goes. */
  async getBrokers(watch?: ZkWatcher): Promise<RegisteredBroker[]> {
    const ids = (await this.children(BROKER_IDS_PATH, watch)).map(Number).filter(Number.isInteger);
    const brokers = await Promise.all(ids.sort((a, b) => a - b).map((id) => this.getBroker(id)));
    return brokers.filter((b): b is RegisteredBroker => b !== null);
  }

  async getBroker(id: number): Promise<RegisteredBroker | null> {
    const node = await this.read(brokerIdPath(id));
    if (node === null) return null;
    const b = decodeBrokerInfo(id, node.data);
    return { id, host: b.host, port: b.port, rack: b.rack, endpoints: b.endpoints, epoch: node.stat.czxid, features: b.features };
  }

  // --- Features ---

  /**
   * The finalized feature levels in /feature and the znode's version (the features' epoch, as
   * Kafka 3.9 brokers report it); null when it does not exist. `watch` fires when it is created,
   * changed or deleted (an exists watch, so it is left even when there is none).
   */
  async getFeatures(watch?: ZkWatcher): Promise<{ levels: Map<string, number>; zkVersion: number } | null> {
    const stat = await this.session.retrying(() => this.session.exists(FEATURE_PATH, watch));
    if (stat === null) return null;
    const node = await this.read(FEATURE_PATH);
    return node === null ? null : { levels: decodeFeatures(node.data), zkVersion: node.stat.version };
  }

  /** Calls `listener` with /feature's levels and version now and after every change, until the returned function is called or the session ends. */
  watchFeatures(listener: (features: { levels: Map<string, number>; zkVersion: number } | null) => void): () => void {
    return this.follow(FEATURE_PATH, (watch) => this.getFeatures(watch), listener);
  }

  /** Creates /feature with `levels` unless it exists (another broker made it first: its levels stand). */
  async createFeatures(levels: ReadonlyMap<string, number>): Promise<void> {
    try {
      await this.session.retrying(() => this.session.create(FEATURE_PATH, encodeFeatures(levels)));
    } catch (err) {
      ignoreNodeExists(err);
    }
  }

  /** Replaces the levels if /feature is at `expectedZkVersion` (else `ZkBadVersionError`); returns the new version. */
  setFeatures(levels: ReadonlyMap<string, number>, expectedZkVersion: number): Promise<number> {
    return this.session.retrying(() => this.session.set(FEATURE_PATH, encodeFeatures(levels), expectedZkVersion));
  }

  // --- Controller ---

  /**
   * The controller's broker id, or null when there is none. `watch` fires when /controller is
   * created, changed or deleted (an exists watch, so it is left even when there is none).
   */
  async getController(watch?: ZkWatcher): Promise<number | null> {
    const stat = await this.session.retrying(() => this.session.exists(CONTROLLER_PATH, watch));
    if (stat === null) return null;
    const node = await this.read(CONTROLLER_PATH);
    return node === null ? null : decodeController(node.data);
  }

  /**
   * Calls `listener` with the controller id now and after every change, until the returned
   * function is called or the session ends.
   */
  watchControllerChange(listener: (controllerId: number | null) => void): () => void {
    return this.follow(CONTROLLER_PATH, (watch) => this.getController(watch), listener);
  }

  /** Reads a znode with `read` now and again after every change it watches, until the returned function is called or the session ends. */
  private follow<T>(path: string, read: (watch: ZkWatcher) => Promise<T>, listener: (value: T) => void): () => void {
    let active = true;
    const arm = (): void => {
      if (!active) return;
      read(() => arm()).then(
        (value) => {
          if (active) listener(value);
        },
        (err: unknown) => {
          if (!active || isSessionEnd(this.session.state)) return;
          log.error(`reading ${path} failed; watching again`, { error: String(err) });
          setTimeout(arm, REARM_DELAY_MS);
        },
      );
    };
    arm();
    return () => {
      active = false;
    };
  }

  async getControllerEpoch(): Promise<{ epoch: number; zkVersion: number } | null> {
    const node = await this.read(CONTROLLER_EPOCH_PATH);
    return node === null ? null : { epoch: decodeControllerEpoch(node.data), zkVersion: node.stat.version };
  }

  /**
   * Kafka's `registerControllerAndIncrementControllerEpoch`: in one multi, creates the ephemeral
   * /controller and sets /controller_epoch to epoch+1 at the version just read (creating it with
   * epoch 0 first if absent). Returns the new epoch and the version of /controller_epoch it wrote,
   * the guard of every later write; null if another broker is controller.
   */
  async tryBecomeController(brokerId: number): Promise<ControllerGuard | null> {
    for (let attempt = 0; attempt < ELECTION_ATTEMPTS; attempt++) {
      const current = await this.getOrCreateControllerEpoch();
      const epoch = current.epoch + 1;
      try {
        const results = await this.session.retrying(() =>
          this.session.multi([
            { type: 'create', path: CONTROLLER_PATH, data: encodeController(brokerId, Date.now()), mode: 'ephemeral' },
            { type: 'set', path: CONTROLLER_EPOCH_PATH, data: encodeControllerEpoch(epoch), version: current.zkVersion },
          ]),
        );
        return { epoch, epochZkVersion: setStat(results[1]).version };
      } catch (err) {
        if (!(err instanceof ZkNodeExistsError || err instanceof ZkBadVersionError)) throw err;
      }
      // Lost, or won by an attempt whose answer was lost: look at who holds /controller.
      const holder = await this.read(CONTROLLER_PATH);
      if (holder === null) continue; // The winner is already gone: run again.
      if (holder.stat.ephemeralOwner !== this.session.sessionId) return null;
      const now = await this.getControllerEpoch();
      if (now !== null && now.epoch === epoch) return { epoch, epochZkVersion: now.zkVersion };
      // Ours, yet the epoch moved past it: never act on it, and free /controller for an election.
      await this.session.retrying(() => this.session.delete(CONTROLLER_PATH, holder.stat.version)).catch(ignoreNoNode);
      return null;
    }
    return null;
  }

  private async getOrCreateControllerEpoch(): Promise<{ epoch: number; zkVersion: number }> {
    try {
      await this.session.retrying(() => this.session.create(CONTROLLER_EPOCH_PATH, encodeControllerEpoch(INITIAL_CONTROLLER_EPOCH)));
      return { epoch: INITIAL_CONTROLLER_EPOCH, zkVersion: 0 };
    } catch (err) {
      ignoreNodeExists(err);
    }
    const current = await this.getControllerEpoch();
    if (current === null) throw new ZkNoNodeError({ path: CONTROLLER_EPOCH_PATH });
    return current;
  }

  /** Deletes /controller if this controller's epoch is still current (Kafka's `deleteController`). */
  async resignController(epochZkVersion: number): Promise<void> {
    await this.guardedWrite(epochZkVersion, { type: 'delete', path: CONTROLLER_PATH, version: ANY_VERSION }).catch(ignoreNoNode);
  }

  // --- Topics ---

  /** Topic names, sorted; `watch` fires when a topic is created or its znode deleted. */
  async getTopics(watch?: ZkWatcher): Promise<string[]> {
    return (await this.children(TOPICS_PATH, watch)).sort();
  }

  async topicExists(name: string): Promise<boolean> {
    return (await this.session.retrying(() => this.session.exists(topicPath(name)))) !== null;
  }

  /**
   * Kafka's `AdminZkClient.createTopicWithAssignment`: refuses a topic that exists or is marked
   * for deletion, writes /config/topics/<topic> first (even with no configs), then the
   * assignment; the controller then notices the new child of /brokers/topics.
   */
  async createTopic(
    name: string,
    topicId: string,
    assignment: ReadonlyMap<number, readonly number[]>,
    configs: Readonly<Record<string, string>>,
  ): Promise<void> {
    if ((await this.session.retrying(() => this.session.exists(deleteTopicPath(name)))) !== null) {
      throw new TopicExistsError(`Topic '${name}' is marked for deletion.`);
    }
    if (await this.topicExists(name)) throw new TopicExistsError(`Topic '${name}' already exists.`);
    await this.writeEntityConfig('topics', name, configs);
    try {
      await this.session.retrying(() =>
        this.session.createRecursive(topicPath(name), encodeTopicAssignment({ topicId, partitions: assignment })),
      );
    } catch (err) {
      if (err instanceof ZkNodeExistsError) throw new TopicExistsError(`Topic '${name}' already exists.`);
      throw err;
    }
  }

  /** The topic's replica assignment, or null if it does not exist; `watch` fires on change or deletion. */
  async getTopicAssignment(name: string, watch?: ZkWatcher): Promise<TopicAssignment | null> {
    const node = await this.read(topicPath(name), watch);
    if (node === null) return null;
    return { ...decodeTopicAssignment(name, node.data), zkVersion: node.stat.version };
  }

  /**
   * Replaces the assignment if /brokers/topics/<topic> is at `expectedZkVersion` (`ANY_VERSION`
   * for any); with `guard`, only while that controller is current. Returns the new version.
   */
  async setTopicAssignment(
    name: string,
    assignment: TopicAssignmentData,
    expectedZkVersion: number,
    guard?: ControllerGuard,
  ): Promise<number> {
    const op: ZkOp = { type: 'set', path: topicPath(name), data: encodeTopicAssignment(assignment), version: expectedZkVersion };
    if (guard !== undefined) return setStat(await this.guardedWrite(guard.epochZkVersion, op)).version;
    return this.session.retrying(() => this.session.set(op.path, op.data, expectedZkVersion));
  }

  // --- Partition states (controller writes) ---

  /**
   * Creates each partition's state znode (and the partitions/<n> folders above it), all guarded.
   * Fails as a whole with `ControllerMovedError`; otherwise says per partition whether it was
   * created.
   */
  async createPartitionStates(guard: ControllerGuard, entries: readonly PartitionStateEntry[]): Promise<PartitionStateCreateResult[]> {
    // The folders exist already, or cannot be made (topic gone): the state create then says which.
    const folder = (path: string): Promise<unknown> =>
      this.guardedWrite(guard.epochZkVersion, { type: 'create', path, data: null }).catch((err: unknown) => {
        if (!(err instanceof ZkNodeExistsError || err instanceof ZkNoNodeError)) throw err;
      });
    await Promise.all([...new Set(entries.map((e) => e.topic))].map((t) => folder(topicPartitionsPath(t))));
    await Promise.all(entries.map((e) => folder(topicPartitionPath(e.topic, e.partition))));
    return Promise.all(
      entries.map(async (e): Promise<PartitionStateCreateResult> => {
        const ref = { topic: e.topic, partition: e.partition };
        try {
          await this.guardedWrite(guard.epochZkVersion, {
            type: 'create',
            path: partitionStatePath(e.topic, e.partition),
            data: encodePartitionState(e.state),
          });
          return { ...ref, ok: true, zkVersion: 0 };
        } catch (err) {
          if (err instanceof ZkError) return { ...ref, ok: false, error: err };
          throw err;
        }
      }),
    );
  }

  /** The partition's leader and ISR with the state znode's version, or null if it has none. */
  async getPartitionState(topic: string, partition: number, watch?: ZkWatcher): Promise<PartitionStateRead | null> {
    const node = await this.read(partitionStatePath(topic, partition), watch);
    return node === null ? null : { state: decodePartitionState(topic, partition, node.data), zkVersion: node.stat.version };
  }

  /** Many partitions' states in one round of pipelined reads, in the order asked (null: none). */
  getPartitionStates(partitions: readonly TopicPartition[]): Promise<(PartitionStateRead | null)[]> {
    return Promise.all(partitions.map((p) => this.getPartitionState(p.topic, p.partition)));
  }

  /**
   * Writes the partition's state if its znode is at `expectedZkVersion` (else `ZkBadVersionError`:
   * someone else updated it; re-read and decide again) and the controller is current (else
   * `ControllerMovedError`). Returns the new version.
   */
  async updatePartitionState(
    guard: ControllerGuard,
    topic: string,
    partition: number,
    state: LeaderAndIsrZk,
    expectedZkVersion: number,
  ): Promise<number> {
    const op: ZkOp = {
      type: 'set',
      path: partitionStatePath(topic, partition),
      data: encodePartitionState(state),
      version: expectedZkVersion,
    };
    return setStat(await this.guardedWrite(guard.epochZkVersion, op)).version;
  }

  // --- Configs ---

  /** The entity's dynamic configs (empty when it has none), e.g. ('brokers', '1') or ('brokers', DEFAULT_ENTITY). */
  async getEntityConfig(type: ConfigEntityType, name: string): Promise<Record<string, string>> {
    const path = configEntityPath(type, name);
    const node = await this.read(path);
    return node === null ? {} : decodeEntityConfig(path, node.data);
  }

  /**
   * Replaces the entity's configs and announces it with a /config/changes notification, as
   * Kafka's `AdminZkClient.changeEntityConfig` (the write wins over a concurrent one, as there).
   */
  async setEntityConfig(type: ConfigEntityType, name: string, configs: Readonly<Record<string, string>>): Promise<void> {
    await this.writeEntityConfig(type, name, configs);
    await this.session.retrying(() => this.session.ensurePath(CONFIG_CHANGES_PATH));
    await this.session.retrying(() =>
      this.session.create(`${CONFIG_CHANGES_PATH}/${CONFIG_CHANGE_PREFIX}`, encodeConfigChange(`${type}/${name}`), 'persistent_sequential'),
    );
  }

  private async writeEntityConfig(type: ConfigEntityType, name: string, configs: Readonly<Record<string, string>>): Promise<void> {
    const path = configEntityPath(type, name);
    const data = encodeEntityConfig(configs);
    const s = this.session;
    try {
      await s.retrying(() => s.set(path, data, ANY_VERSION));
      return;
    } catch (err) {
      ignoreNoNode(err);
    }
    try {
      await s.retrying(() => s.createRecursive(path, data));
    } catch (err) {
      ignoreNodeExists(err);
      await s.retrying(() => s.set(path, data, ANY_VERSION));
    }
  }

  /**
   * The config paths of every user, client id and ip entity (`users/alice`,
   * `users/alice/clients/app`, `clients/app`, `ips/10.0.0.1`), read at start-up: change
   * notifications older than their expiry are gone, the entities are not.
   */
  async listClientEntityPaths(): Promise<string[]> {
    const paths: string[] = [];
    for (const type of ['users', 'clients', 'ips'] as const) {
      for (const name of await this.children(`/config/${type}`)) {
        paths.push(`${type}/${name}`);
        if (type === 'users')
          for (const client of await this.children(`/config/users/${name}/clients`)) paths.push(`users/${name}/clients/${client}`);
      }
    }
    return paths;
  }

  /** Ids of the groups with a config entity (`/config/groups/<id>`), read at start-up as the client entities are. */
  async listConfiguredGroups(): Promise<string[]> {
    return this.children(`/config/${GROUP_CONFIG_ENTITY}`);
  }

  /**
   * Calls `listener` with the entity path (`topics/<t>`, `brokers/<id>`, `brokers/<default>`) of
   * every config change notification, in order and once each — those already present first, as
   * Kafka's listener does at start-up. See `ChangeNotificationWatcher`.
   */
  watchConfigChanges(listener: (entityPath: string) => void, options: { expirationMs?: number } = {}): ConfigChangeSubscription {
    return new ChangeNotificationWatcher(this.session, CONFIG_CHANGE_FEED, listener, options.expirationMs).start();
  }

  // --- ACLs (Kafka's AclAuthorizer layout) ---

  /** Every ACL stored under /kafka-acl and /kafka-acl-extended/prefixed. */
  async getAllAcls(): Promise<AclBinding[]> {
    const out: AclBinding[] = [];
    for (const patternType of [PatternType.LITERAL, PatternType.PREFIXED]) {
      const root = aclRootPath(patternType);
      for (const typeName of await this.children(root)) {
        const resourceType = parseResourceType(typeName);
        if (resourceType === undefined) continue;
        for (const name of await this.children(`${root}/${typeName}`)) {
          const pattern = { resourceType, name, patternType };
          for (const entry of (await this.getResourceAcls(pattern)).entries) out.push({ pattern, entry });
        }
      }
    }
    return out;
  }

  /** One resource's ACLs and its znode version (-1: no znode). */
  async getResourceAcls(pattern: ResourcePattern): Promise<{ entries: AccessControlEntry[]; zkVersion: number }> {
    const path = aclResourcePath(pattern);
    const node = await this.session.retrying(() => this.session.get(path));
    return node === null ? { entries: [], zkVersion: -1 } : { entries: decodeResourceAcls(path, node.data), zkVersion: node.stat.version };
  }

  /**
   * Replaces one resource's ACLs with `update(current)` as Kafka's AclAuthorizer does: a
   * conditional write against the version read (create if absent, delete when none are left),
   * read and tried again when another writer got in between; then a change notification so every
   * broker reloads the resource. Returns the ACLs written.
   */
  async updateResourceAcls(
    pattern: ResourcePattern,
    update: (current: readonly AccessControlEntry[]) => readonly AccessControlEntry[],
  ): Promise<readonly AccessControlEntry[]> {
    const path = aclResourcePath(pattern);
    const s = this.session;
    for (;;) {
      const { entries, zkVersion } = await this.getResourceAcls(pattern);
      const next = update(entries);
      if (next.length === entries.length && next.every((e, i) => e === entries[i])) return entries;
      try {
        if (zkVersion < 0) {
          if (next.length > 0) await s.retrying(() => s.createRecursive(path, encodeResourceAcls(next)));
        } else if (next.length === 0) {
          await s.retrying(() => s.delete(path, zkVersion));
        } else {
          await s.retrying(() => s.set(path, encodeResourceAcls(next), zkVersion));
        }
      } catch (err) {
        if (err instanceof ZkBadVersionError || err instanceof ZkNodeExistsError || err instanceof ZkNoNodeError) continue;
        throw err;
      }
      const changes = aclChangesPath(pattern.patternType);
      await s.retrying(() => s.ensurePath(changes));
      await s.retrying(() => s.create(`${changes}/${ACL_CHANGE_PREFIX}`, encodeAclChange(pattern), 'persistent_sequential'));
      return next;
    }
  }

  /**
   * Calls `listener` with the resource of every ACL change notification (literal and extended),
   * those already present first; the listener reads the resource's ACLs afresh.
   */
  watchAclChanges(listener: (pattern: ResourcePattern) => void, options: { expirationMs?: number } = {}): ConfigChangeSubscription {
    const feeds: ChangeFeed<ResourcePattern>[] = [
      { path: LITERAL_ACL_CHANGES_PATH, prefix: ACL_CHANGE_PREFIX, decode: decodeLiteralAclChange },
      { path: EXTENDED_ACL_CHANGES_PATH, prefix: ACL_CHANGE_PREFIX, decode: decodeExtendedAclChange },
    ];
    const watchers = feeds.map((feed) => new ChangeNotificationWatcher(this.session, feed, listener, options.expirationMs).start());
    return { close: () => watchers.forEach((w) => w.close()) };
  }

  // --- Topic deletion ---

  /** Creates /admin/delete_topics/<topic> for the controller; false if it was already marked. */
  async markTopicForDeletion(name: string): Promise<boolean> {
    try {
      await this.session.retrying(() => this.session.createRecursive(deleteTopicPath(name), null));
      return true;
    } catch (err) {
      ignoreNodeExists(err);
      return false;
    }
  }

  /** Drops a deletion mark without deleting (the controller's answer when `delete.topic.enable` is off). */
  async unmarkTopicForDeletion(guard: ControllerGuard, name: string): Promise<void> {
    await this.guardedWrite(guard.epochZkVersion, { type: 'delete', path: deleteTopicPath(name), version: ANY_VERSION }).catch(
      ignoreNoNode,
    );
  }

  /** Topics marked for deletion, sorted; `watch` fires when one is marked or unmarked. */
  async getTopicsToDelete(watch?: ZkWatcher): Promise<string[]> {
    return (await this.children(DELETE_TOPICS_PATH, watch)).sort();
  }

  /**
   * The end of a topic deletion (Kafka's `TopicDeletionManager.completeDeleteTopic`): removes
   * /brokers/topics/<topic> with everything under it, /config/topics/<topic> and the deletion
   * mark, every delete guarded.
   */
  async deleteTopicZnodes(guard: ControllerGuard, name: string): Promise<void> {
    await this.deleteRecursive(guard, topicPath(name));
    await this.guardedWrite(guard.epochZkVersion, { type: 'delete', path: configEntityPath('topics', name), version: ANY_VERSION }).catch(
      ignoreNoNode,
    );
    await this.guardedWrite(guard.epochZkVersion, { type: 'delete', path: deleteTopicPath(name), version: ANY_VERSION }).catch(
      ignoreNoNode,
    );
  }

  private async deleteRecursive(guard: ControllerGuard, path: string): Promise<void> {
    const children = await this.session.retrying(() => this.session.getChildren(path));
    if (children === null) return;
    await Promise.all(children.map((child) => this.deleteRecursive(guard, `${path}/${child}`)));
    await this.guardedWrite(guard.epochZkVersion, { type: 'delete', path, version: ANY_VERSION }).catch(ignoreNoNode);
  }

  // --- Log dir events ---

  /**
   * Tells the controller that a log dir of `brokerId` failed (Kafka's `propagateLogDirEvent`):
   * a sequential znode under /log_dir_event_notification, which the controller deletes once read.
   */
  async propagateLogDirEvent(brokerId: number): Promise<void> {
    const s = this.session;
    await s.retrying(() =>
      s.createRecursive(`${LOG_DIR_EVENT_NOTIFICATION_PATH}/${LOG_DIR_EVENT_PREFIX}`, encodeLogDirEvent(brokerId), 'persistent_sequential'),
    );
  }

  /** The pending log dir event notifications (znode names), oldest first; `watch` fires when one is added. */
  async getLogDirEventNotifications(watch?: ZkWatcher): Promise<string[]> {
    return (await this.children(LOG_DIR_EVENT_NOTIFICATION_PATH, watch)).filter((name) => name.startsWith(LOG_DIR_EVENT_PREFIX)).sort();
  }

  /** The brokers the notifications name (one deleted meanwhile names none). */
  async getLogDirEventBrokers(names: readonly string[]): Promise<number[]> {
    const brokers = await Promise.all(
      names.map(async (name) => {
        const path = `${LOG_DIR_EVENT_NOTIFICATION_PATH}/${name}`;
        const node = await this.read(path);
        return node === null ? null : decodeLogDirEvent(path, node.data);
      }),
    );
    return brokers.filter((b): b is number => b !== null);
  }

  /** Removes handled notifications, as the controller of `guard`'s epoch. */
  async deleteLogDirEventNotifications(guard: ControllerGuard, names: readonly string[]): Promise<void> {
    for (const name of names) {
      await this.guardedWrite(guard.epochZkVersion, {
        type: 'delete',
        path: `${LOG_DIR_EVENT_NOTIFICATION_PATH}/${name}`,
        version: ANY_VERSION,
      }).catch(ignoreNoNode);
    }
  }

  // --- Producer ids ---

  /**
   * Claims the next block of producer ids for `brokerId` (Kafka's ZooKeeper-mode
   * `ZkProducerIdManager`): reads /latest_producer_id_block and compare-and-sets the block after
   * it at the version read, again on a lost race, so two brokers never get overlapping blocks.
   */
  async allocateProducerIdBlock(brokerId: number, blockSize = PRODUCER_ID_BLOCK_SIZE): Promise<ProducerIdBlock> {
    const s = this.session;
    for (let attempt = 0; attempt < PRODUCER_ID_ATTEMPTS; attempt++) {
      const node = await this.read(PRODUCER_ID_BLOCK_PATH);
      const hasBlock = node !== null && node.data !== null && node.data.length > 0;
      const last = hasBlock ? decodeProducerIdBlock(node.data) : undefined;
      const first = last === undefined ? 0n : last.firstProducerId + BigInt(last.size);
      if (first + BigInt(blockSize) - 1n > MAX_PRODUCER_ID) throw new Error('producer ids are exhausted: the next block would pass 2^63-1');
      const data = encodeProducerIdBlock({ brokerId, firstProducerId: first, size: blockSize });
      try {
        if (node === null) await s.retrying(() => s.createRecursive(PRODUCER_ID_BLOCK_PATH, data));
        else await s.retrying(() => s.set(PRODUCER_ID_BLOCK_PATH, data, node.stat.version));
        return { firstProducerId: first, size: blockSize };
      } catch (err) {
        // Another broker took this block first (or a retried write of ours did): take the next.
        if (!(err instanceof ZkBadVersionError || err instanceof ZkNodeExistsError)) throw err;
      }
    }
    throw new Error(`could not claim a producer id block in ${PRODUCER_ID_ATTEMPTS} attempts`);
  }

  // --- Helpers ---

  private read(path: string, watch?: ZkWatcher): Promise<{ data: Buffer | null; stat: ZkStat } | null> {
    return this.session.retrying(() => this.session.get(path, watch));
  }

  private async children(path: string, watch?: ZkWatcher): Promise<string[]> {
    return (await this.session.retrying(() => this.session.getChildren(path, watch))) ?? [];
  }

  /**
   * `op` behind a check that /controller_epoch is at `epochZkVersion` (Kafka's
   * `wrapRequestWithControllerEpochCheck`); returns `op`'s result. A failed check is
   * `ControllerMovedError`; a failure of `op` itself is its own typed error.
   */
  private async guardedWrite(epochZkVersion: number, op: ZkOp): Promise<ZkOpResult> {
    try {
      const results = await this.session.retrying(() =>
        this.session.multi([{ type: 'check', path: CONTROLLER_EPOCH_PATH, version: epochZkVersion }, op]),
      );
      return results[1]!;
    } catch (err) {
      if (err instanceof ZkError && err.opIndex === 0 && (err instanceof ZkBadVersionError || err instanceof ZkNoNodeError)) {
        throw new ControllerMovedError(
          `controller epoch check failed for ${op.type} ${op.path}: ${CONTROLLER_EPOCH_PATH} is no longer at version ${epochZkVersion}; another controller has been elected`,
          { cause: err },
        );
      }
      throw err;
    }
  }
}

function setStat(result: ZkOpResult | undefined): ZkStat {
  if (result?.type !== 'set') throw new ZkError(ZkCode.SYSTEM_ERROR, `expected a set result in the multi, got ${result?.type ?? 'none'}`);
  return result.stat;
}
