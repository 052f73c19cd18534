/**
 * What the optional tests need from the machine, each as a one-line skip reason naming what to
 * install, or undefined when it is there. Tests pass these to `describe`/`test` as `skip`, so a
 * machine without Java, Kafka's jars, ZooKeeper, kcat or confluent-kafka-python runs everything
 * else and says what it left out. Each probe runs once per test process.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { KAFKA_VERSION, kafkaLibsPresent, repoRoot } from '../../tools/kafka/kafka-release.js';
import { buildKgoTests, KGO_TEST_BINARY } from '../../tools/franz-share/franz-suite.js';
import { zooKeeperInstallProblem } from '../../src/zk/zookeeper-server.js';

const PROBE_TIMEOUT_MS = 15_000;
const FETCH_TIMEOUT_MS = 300_000;

function runs(command: string, args: readonly string[]): boolean {
  return spawnSync(command, args, { stdio: 'ignore', timeout: PROBE_TIMEOUT_MS }).status === 0;
}

function once<T>(probe: () => T): () => T {
  let result: { value: T } | undefined;
  return () => (result ??= { value: probe() }).value;
}

/** Kafka's jars of the pinned release, fetched from Maven Central here if Maven is installed. */
export const kafkaJarsSkip = once((): string | undefined => {
  if (kafkaLibsPresent()) return undefined;
  if (!runs('mvn', ['-v']))
    return `Kafka ${KAFKA_VERSION}'s jars are absent and Maven is not installed to fetch them (apt-get install maven)`;
  const fetch = spawnSync(join(repoRoot(), 'tools', 'kafka', 'fetch-kafka.sh'), [KAFKA_VERSION], {
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: FETCH_TIMEOUT_MS,
    encoding: 'utf8',
  });
  if (fetch.status !== 0 || !kafkaLibsPresent()) {
    return `fetching Kafka ${KAFKA_VERSION}'s jars failed: ${(fetch.error?.message ?? fetch.stderr).trim().split('\n').pop() ?? ''}`;
  }
  return undefined;
});

/** A Java runtime and the pinned release's jars: Kafka's client, broker and tools. */
export const javaSkip = once((): string | undefined => {
  if (!runs(process.env['JAVA'] ?? 'java', ['-version'])) return 'java is not installed (apt-get install openjdk-17-jdk-headless)';
  return kafkaJarsSkip();
});

/**
 * The franz-go share consumer of the share-group tests, built once with Go into dist/ (its modules
 * come from the Go module proxy on the first build, like any Go program's).
 */
export const FRANZ_SHARE_BINARY = join(repoRoot(), 'dist', 'test', 'integration', 'share', 'franz-share');
export const franzShareSkip = once((): string | undefined => {
  if (!runs('go', ['version'])) return 'go is not installed (the franz-go share consumer is a Go program)';
  const build = spawnSync('go', ['build', '-o', FRANZ_SHARE_BINARY, '.'], {
    cwd: join(repoRoot(), 'test', 'integration', 'share', 'franz'),
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: FETCH_TIMEOUT_MS,
    encoding: 'utf8',
  });
  return build.status === 0
    ? undefined
    : `building the franz-go share consumer failed: ${(build.error?.message ?? build.stderr).trim().split('\n').pop() ?? ''}`;
});

/**
 * franz-go's own pkg/kgo test binary (tools/franz-share), built once with Go into dist/; the
 * module's sources come from the Go module cache or proxy like any Go build's.
 */
export const franzSuiteSkip = once((): string | undefined => {
  if (!runs('go', ['version'])) return "go is not installed (franz-go's share-group tests are Go tests)";
  return buildKgoTests(KGO_TEST_BINARY, FETCH_TIMEOUT_MS);
});

export const kcatSkip = once((): string | undefined => (runs('kcat', ['-V']) ? undefined : 'kcat is not installed (apt-get install kcat)'));

/** A Java runtime and Debian's ZooKeeper server (`apt-get install zookeeper`). */
export const zooKeeperSkip = once((): string | undefined => zooKeeperInstallProblem());

/** What `npm pack` needs to build the prebuilt addon (tools/prebuild/prebuild.sh): a C++ toolchain and every codec's -dev package. */
export const prebuildSkip = once((): string | undefined => {
  if (!runs('c++', ['--version']) || !runs('make', ['--version']))
    return 'no C++ toolchain to build the prebuild (apt-get install build-essential)';
  if (!runs('pkg-config', ['--exists', 'zlib', 'snappy', 'liblz4', 'libzstd']))
    return 'the prebuild links every codec (apt-get install pkg-config zlib1g-dev libsnappy-dev liblz4-dev libzstd-dev)';
  return undefined;
});
