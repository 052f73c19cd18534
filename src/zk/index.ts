/** The ZooKeeper layer of cluster mode; see README.md and docs/ARCHITECTURE.md. */
export { ZkSession, type ZkSessionOptions } from './zk-session.js';
export {
  ANY_VERSION,
  type CreateMode,
  type ZkNode,
  type ZkOp,
  type ZkOpResult,
  type ZkStat,
  type ZkState,
  type ZkWatcher,
  type ZkWatchEvent,
  type ZkWatchEventType,
} from './zk-types.js';
export {
  ZkBadVersionError,
  ZkClosedError,
  ZkCode,
  ZkConnectionLossError,
  ZkConnectTimeoutError,
  ZkError,
  ZkNodeExistsError,
  ZkNoNodeError,
  ZkNotEmptyError,
  ZkSessionExpiredError,
} from './zk-errors.js';
export {
  KafkaZkClient,
  PRODUCER_ID_BLOCK_SIZE,
  type ControllerGuard,
  type PartitionStateCreateResult,
  type PartitionStateEntry,
  type PartitionStateRead,
  type ProducerIdBlock,
  type RegisteredBroker,
  type TopicAssignment,
} from './kafka-zk-client.js';
export { type ConfigChangeSubscription } from './config-change-watcher.js';
export {
  CONFIG_ENTITY_TYPES,
  DEFAULT_ENTITY,
  GROUP_CONFIG_ENTITY,
  type BrokerEndpoint,
  type BrokerInfo,
  type ConfigEntityType,
  type LeaderAndIsrZk,
  type SupportedFeatureRange,
  type TopicAssignmentData,
} from './kafka-zk-data.js';
export { BrokerIdInUseError, ControllerMovedError, KafkaZkDataError, TopicExistsError, sessionIdHex } from './kafka-zk-errors.js';
export {
  startZooKeeper,
  zooKeeperInstallProblem,
  ZooKeeperStartError,
  type ZooKeeperServer,
  type ZooKeeperServerOptions,
} from './zookeeper-server.js';
