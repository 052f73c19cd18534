/**
 * The Apache Kafka release the project is pinned to. The reference broker, the Java client of the
 * interop tests, Kafka's tools and the message definitions the codecs are generated from all come
 * from this one release, whose version is written once, in tools/kafka/kafka-version (which
 * fetch-kafka.sh reads too). Its jars come from Maven Central into .cache/kafka/<version>/libs.
 *
 * One thing comes from an older release: Kafka 4 removed the ZooKeeper-era inter-broker APIs
 * (LeaderAndIsr, StopReplica, UpdateMetadata, ControlledShutdown) that Sluice's ZooKeeper-coordinated
 * cluster speaks, so their definitions are read from the kafka-clients jar of the last release
 * that had them, pinned in tools/kafka/zookeeper-era-version. fetch-kafka.sh puts that one jar
 * beside the release's libs (not among them: it must stay off the release's classpath).
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) || !existsSync(join(dir, 'tools', 'kafka', 'kafka-version'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('repository root not found above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
  return dir;
}

export const KAFKA_VERSION_FILE = join(repoRoot(), 'tools', 'kafka', 'kafka-version');

/** The pinned release, e.g. "4.4.0". */
export const KAFKA_VERSION: string = readFileSync(KAFKA_VERSION_FILE, 'utf8').trim();

export const ZOOKEEPER_ERA_VERSION_FILE = join(repoRoot(), 'tools', 'kafka', 'zookeeper-era-version');

/** The release the ZooKeeper-era inter-broker API definitions come from, e.g. "3.9.1". */
export const ZOOKEEPER_ERA_VERSION: string = readFileSync(ZOOKEEPER_ERA_VERSION_FILE, 'utf8').trim();

export function kafkaLibsDir(version: string = KAFKA_VERSION): string {
  return join(repoRoot(), '.cache', 'kafka', version, 'libs');
}

/** The path of one of the release's own jars, e.g. `kafkaJar('kafka-clients')`; it may not exist yet. */
export function kafkaJar(artifact: string, version: string = KAFKA_VERSION): string {
  return join(kafkaLibsDir(version), `${artifact}-${version}.jar`);
}

/**
 * Where fetch-kafka.sh `version` puts the ZooKeeper-era kafka-clients jar: in the release's cache
 * folder, so the same lock guards it, but outside libs/ and so off the release's classpath.
 */
export function zookeeperEraClientsJar(version: string = KAFKA_VERSION): string {
  return join(dirname(kafkaLibsDir(version)), 'zookeeper-era', `kafka-clients-${ZOOKEEPER_ERA_VERSION}.jar`);
}

/**
 * True once fetch-kafka.sh completed for `version`: it writes the release's marker last, and
 * moves the ZooKeeper-era jar into place whole (a cache made before that jar was needed lacks it).
 */
export function kafkaLibsPresent(version: string = KAFKA_VERSION): boolean {
  return existsSync(join(dirname(kafkaLibsDir(version)), '.complete')) && existsSync(zookeeperEraClientsJar(version));
}

/** Downloads the jars on first use (Maven Central only) and returns the libs directory. */
export async function ensureKafkaLibs(version: string = KAFKA_VERSION): Promise<string> {
  const script = join(repoRoot(), 'tools', 'kafka', 'fetch-kafka.sh');
  const { stdout } = await execFileAsync(script, [version], { maxBuffer: 16 * 1024 * 1024 });
  return stdout.trim();
}

export function kafkaClasspath(libsDir: string = kafkaLibsDir()): string {
  return join(libsDir, '*');
}
