/**
 * Apache Kafka's JSON message definitions, read from the jars of one release: kafka-clients
 * carries the protocol messages, the group and transaction coordinators the records of
 * `__consumer_offsets` and `__transaction_state`. Reading them from the release the project is
 * pinned to (rather than from a copy beside the repository) makes every clone generate, and
 * check, the same codecs.
 */
import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import { readJarEntries } from '../kafka/jar-entries.js';
import { kafkaJar } from '../kafka/kafka-release.js';
import { parseMessage, type MessageDef } from './schema.js';

export class DefinitionsMissingError extends Error {
  override name = 'DefinitionsMissingError';
}

const DEFINITIONS_FOLDER = 'common/message/';

/** The jar of each kind of definition. */
const SOURCES = {
  messages: 'kafka-clients',
  groupCoordinator: 'kafka-group-coordinator',
  transactionCoordinator: 'kafka-transaction-coordinator',
} as const;

export interface KafkaDefinitions {
  readonly version: string;
  /** Requests, responses, headers and the data schemas that travel inside them. */
  readonly messages: MessageDef[];
  /** Key and value records of the coordinators' internal topics. */
  readonly coordinatorRecords: MessageDef[];
}

/** The jars `version` needs that are not in .cache/kafka yet (fetch-kafka.sh brings them). */
export function missingDefinitionJars(version: string): string[] {
  return Object.values(SOURCES).map((artifact) => kafkaJar(artifact, version)).filter((jar) => !existsSync(jar));
}

function definitionsIn(artifact: string, version: string): MessageDef[] {
  const jar = kafkaJar(artifact, version);
  const entries = readJarEntries(jar, (name) => name.startsWith(DEFINITIONS_FOLDER) && name.endsWith('.json'));
  if (entries.length === 0) throw new DefinitionsMissingError(`${jar} holds no ${DEFINITIONS_FOLDER}*.json`);
  return entries
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((e) => parseMessage(e.data.toString('utf8'), `${basename(jar)}:${e.name}`));
}

export function loadKafkaDefinitions(version: string): KafkaDefinitions {
  const missing = missingDefinitionJars(version);
  if (missing.length > 0) {
    throw new DefinitionsMissingError(`Kafka ${version}'s jars are absent (${missing.join(', ')}): run tools/kafka/fetch-kafka.sh ${version}`);
  }
  return {
    version,
    messages: definitionsIn(SOURCES.messages, version),
    coordinatorRecords: [
      ...definitionsIn(SOURCES.groupCoordinator, version),
      ...definitionsIn(SOURCES.transactionCoordinator, version),
    ],
  };
}
