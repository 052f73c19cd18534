/**
 * Apache Kafka's JSON message definitions, read from the jars of one release: kafka-clients
 * carries the protocol messages, the group, transaction and share coordinators the records of
 * `__consumer_offsets`, `__transaction_state` and `__share_group_state`. Reading them from the release the project is
 * pinned to (rather than from a copy beside the repository) makes every clone generate, and
 * check, the same codecs.
 *
 * The ZooKeeper-era inter-broker APIs are the exception: Kafka 4 keeps only stubs of them
 * (no versions, no fields), so their requests and responses come from the kafka-clients jar of
 * the ZooKeeper-era release (tools/kafka/zookeeper-era-version) and replace those stubs.
 */
import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import { readJarEntries } from '../kafka/jar-entries.js';
import { kafkaJar, zookeeperEraClientsJar, ZOOKEEPER_ERA_VERSION } from '../kafka/kafka-release.js';
import { isEmpty, parseMessage, type MessageDef } from './schema.js';

export class DefinitionsMissingError extends Error {
  override name = 'DefinitionsMissingError';
}

const DEFINITIONS_FOLDER = 'common/message/';

/** The jar of each kind of definition. */
const SOURCES = {
  messages: 'kafka-clients',
  groupCoordinator: 'kafka-group-coordinator',
  transactionCoordinator: 'kafka-transaction-coordinator',
  shareCoordinator: 'kafka-share-coordinator',
} as const;

/**
 * LeaderAndIsr, StopReplica, UpdateMetadata and ControlledShutdown: what a ZooKeeper-era
 * controller and its brokers say to one another, removed from Kafka 4.
 */
export const ZOOKEEPER_ERA_API_KEYS: readonly number[] = [4, 5, 6, 7];

export interface KafkaDefinitions {
  readonly version: string;
  /** Requests, responses, headers and the data schemas that travel inside them, of the pinned release. */
  readonly messages: MessageDef[];
  /** The requests and responses of ZOOKEEPER_ERA_API_KEYS, from the ZooKeeper-era release. */
  readonly zookeeperEraApis: MessageDef[];
  /** Key and value records of the coordinators' internal topics. */
  readonly coordinatorRecords: MessageDef[];
}

/** The jars `version` needs that are not in .cache/kafka yet (fetch-kafka.sh brings them). */
export function missingDefinitionJars(version: string): string[] {
  const jars = [...Object.values(SOURCES).map((artifact) => kafkaJar(artifact, version)), zookeeperEraClientsJar(version)];
  return jars.filter((jar) => !existsSync(jar));
}

function definitionsIn(jar: string): MessageDef[] {
  const entries = readJarEntries(jar, (name) => name.startsWith(DEFINITIONS_FOLDER) && name.endsWith('.json'));
  if (entries.length === 0) throw new DefinitionsMissingError(`${jar} holds no ${DEFINITIONS_FOLDER}*.json`);
  return entries
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((e) => parseMessage(e.data.toString('utf8'), `${basename(jar)}:${e.name}`));
}

function isZookeeperEraApi(m: MessageDef): boolean {
  return (m.kind === 'request' || m.kind === 'response') && m.apiKey !== null && ZOOKEEPER_ERA_API_KEYS.includes(m.apiKey);
}

/**
 * The request and response of each ZooKeeper-era API. A pinned release that defines versions of
 * one of them again would make two sources for one codec, so that is refused rather than chosen.
 */
function zookeeperEraApis(pinned: readonly MessageDef[], version: string): MessageDef[] {
  const revived = pinned.filter((m) => isZookeeperEraApi(m) && !isEmpty(m.validVersions));
  if (revived.length > 0) {
    throw new Error(`Kafka ${version} defines ${revived.map((m) => m.name).join(', ')} itself: drop its key from ZOOKEEPER_ERA_API_KEYS`);
  }
  const jar = zookeeperEraClientsJar(version);
  const legacy = definitionsIn(jar).filter(isZookeeperEraApi);
  for (const apiKey of ZOOKEEPER_ERA_API_KEYS) {
    for (const kind of ['request', 'response'] as const) {
      if (!legacy.some((m) => m.apiKey === apiKey && m.kind === kind)) {
        throw new DefinitionsMissingError(`${basename(jar)} (Kafka ${ZOOKEEPER_ERA_VERSION}) has no ${kind} definition of API ${apiKey}`);
      }
    }
  }
  return legacy;
}

export function loadKafkaDefinitions(version: string): KafkaDefinitions {
  const missing = missingDefinitionJars(version);
  if (missing.length > 0) {
    throw new DefinitionsMissingError(
      `Kafka ${version}'s jars are absent (${missing.join(', ')}): run tools/kafka/fetch-kafka.sh ${version}`,
    );
  }
  const pinned = definitionsIn(kafkaJar(SOURCES.messages, version));
  return {
    version,
    messages: pinned.filter((m) => !isZookeeperEraApi(m)),
    zookeeperEraApis: zookeeperEraApis(pinned, version),
    coordinatorRecords: [
      ...definitionsIn(kafkaJar(SOURCES.groupCoordinator, version)),
      ...definitionsIn(kafkaJar(SOURCES.transactionCoordinator, version)),
      ...definitionsIn(kafkaJar(SOURCES.shareCoordinator, version)),
    ],
  };
}
