/**
 * Which client `sluice tune` drives, and how to start its driver process:
 *
 * - `java`: Kafka's producer from the kafka-clients jars, as a single-file source program
 *   (`java -cp <jars> TuneDriver.java`), compiled once into the cache when a JDK's `javac` is there. The jars come from `--kafka-clients` (a Kafka release's
 *   `libs/` folder, or a classpath), else the project's cache `.cache/kafka/<version>/libs`,
 *   fetched there with tools/kafka/fetch-kafka.sh (Maven) when it is missing.
 * - `librdkafka`: the C driver, compiled on first use with the system compiler against the
 *   system's librdkafka (Debian's `librdkafka-dev`) and cached under the user's cache directory
 *   (`$XDG_CACHE_HOME/sluice`, else `~/.cache/sluice`), keyed by the source's hash.
 * - `sluice`: Sluice's own `BatchingProducer` (`sluice-driver.ts`), always present.
 *
 * Without `--client` the first present one of that order is taken (present: nothing to fetch —
 * jars are fetched only for an explicit `--client java`); naming a client that is missing fails
 * with what to install. Sluice itself never needs Java or a compiler.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CLIENT_NAMES = ['java', 'librdkafka', 'sluice'] as const;
export type ClientName = (typeof CLIENT_NAMES)[number];

export function isClientName(name: string): name is ClientName {
  return (CLIENT_NAMES as readonly string[]).includes(name);
}

export interface DriverCommand {
  readonly client: ClientName;
  readonly command: string;
  readonly args: readonly string[];
}

export interface ClientLookup {
  /** `--kafka-clients`: a folder of jars or a classpath; null: the project's cache. */
  readonly kafkaClients: string | null;
  /** Where the compiled librdkafka driver is kept. */
  readonly cacheDir: string;
  /** Told about slow first-use steps (fetching jars, compiling). */
  readonly note: (text: string) => void;
}

export class ClientUnavailableError extends Error {
  override name = 'ClientUnavailableError';
  constructor(
    readonly client: ClientName,
    reason: string,
  ) {
    super(`--client ${client}: ${reason}`);
  }
}

const PROBE_TIMEOUT_MS = 15_000;
const FETCH_TIMEOUT_MS = 600_000;
const COMPILE_TIMEOUT_MS = 120_000;

/** The nearest folder above this module that holds `marker`, or null. */
function folderAbove(marker: string): string | null {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, marker))) {
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
  return dir;
}

/** The package's root: the folder holding drivers/ (the driver sources ship with the package). */
function packageRoot(): string {
  const root = folderAbove(join('drivers', 'TuneDriver.java'));
  if (root === null) throw new Error(`drivers/ not found above ${fileURLToPath(import.meta.url)}`);
  return root;
}

export function defaultCacheDir(): string {
  const base = process.env['XDG_CACHE_HOME'] ?? join(homedir(), '.cache');
  return join(base, 'sluice');
}

/** The requested client's driver, or (with none requested) the first one present: java, librdkafka, sluice. */
export function chooseClient(
  requested: ClientName | null,
  lookup: ClientLookup,
): { readonly driver: DriverCommand; readonly skipped: readonly string[] } {
  if (requested !== null) return { driver: resolveClient(requested, lookup), skipped: [] };
  const skipped: string[] = [];
  for (const client of CLIENT_NAMES) {
    try {
      return { driver: resolveClient(client, lookup, false), skipped };
    } catch (err) {
      if (!(err instanceof ClientUnavailableError)) throw err;
      skipped.push(err.message);
    }
  }
  throw new Error('unreachable: the sluice client is always present');
}

/** `fetchJars`: whether `java` may download Kafka's jars (minutes, with Maven) when they are not cached. */
export function resolveClient(client: ClientName, lookup: ClientLookup, fetchJars = true): DriverCommand {
  switch (client) {
    case 'java':
      return javaDriver(lookup, fetchJars);
    case 'librdkafka':
      return librdkafkaDriver(lookup);
    case 'sluice':
      return { client, command: process.execPath, args: [fileURLToPath(new URL('./sluice-driver.js', import.meta.url))] };
  }
}

function runs(command: string, args: readonly string[]): boolean {
  return spawnSync(command, args, { stdio: 'ignore', timeout: PROBE_TIMEOUT_MS }).status === 0;
}

function javaDriver(lookup: ClientLookup, fetchJars: boolean): DriverCommand {
  const java = process.env['JAVA'] ?? 'java';
  if (!runs(java, ['-version']))
    throw new ClientUnavailableError(
      'java',
      'no Java runtime (java) on the PATH; install one (Java 17 or later, e.g. apt-get install openjdk-17-jre-headless)',
    );
  const classpath = lookup.kafkaClients === null ? cachedKafkaClasspath(lookup, fetchJars) : givenClasspath(lookup.kafkaClients);
  const source = join(packageRoot(), 'drivers', 'TuneDriver.java');
  const compiled = compiledJavaDriver(source, classpath, lookup);
  if (compiled === null) return { client: 'java', command: java, args: ['-cp', classpath, source] };
  return { client: 'java', command: java, args: ['-cp', `${compiled}${delimiter}${classpath}`, 'TuneDriver'] };
}

/**
 * A JVM compiles a single-file program at every launch, seconds per cell; with a JDK the driver
 * is compiled once into the cache instead. Null with only a JRE: then every launch compiles it.
 */
function compiledJavaDriver(source: string, classpath: string, lookup: ClientLookup): string | null {
  const dir = join(lookup.cacheDir, `tune-driver-java-${sourceHash(source)}`);
  if (existsSync(join(dir, 'TuneDriver.class'))) return dir;
  const javac = process.env['JAVAC'] ?? 'javac';
  if (!runs(javac, ['-version'])) return null;
  const partial = `${dir}.${process.pid}.tmp`;
  mkdirSync(partial, { recursive: true });
  lookup.note(`compiling the Java driver into ${dir} (once)`);
  const built = spawnSync(javac, ['-cp', classpath, '-d', partial, source], {
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: COMPILE_TIMEOUT_MS,
    encoding: 'utf8',
  });
  if (built.status !== 0) {
    rmSync(partial, { recursive: true, force: true });
    throw new ClientUnavailableError(
      'java',
      `compiling the driver against ${classpath} failed: ${lastLine(built.error?.message ?? built.stderr)}`,
    );
  }
  renameSync(partial, dir);
  return dir;
}

function sourceHash(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex').slice(0, 16);
}

function hasKafkaClientsJar(dir: string): boolean {
  return existsSync(dir) && readdirSync(dir).some((f) => /^kafka-clients-.*\.jar$/.test(f));
}

/** A folder of jars becomes `folder/*`; a classpath is taken as it is, once it names a kafka-clients jar. */
function givenClasspath(given: string): string {
  if (existsSync(given) && statSync(given).isDirectory()) {
    if (!hasKafkaClientsJar(given)) throw new ClientUnavailableError('java', `${given} holds no kafka-clients-*.jar`);
    return join(given, '*');
  }
  const entries = given.split(delimiter);
  if (!entries.some((e) => /kafka-clients-[^/\\]*\.jar$/.test(e) || (e.endsWith('*') && hasKafkaClientsJar(dirname(e))))) {
    throw new ClientUnavailableError(
      'java',
      `--kafka-clients '${given}' is neither a folder of jars nor a classpath with a kafka-clients jar`,
    );
  }
  return given;
}

/**
 * The jars tests and benchmarks use: the pinned release's libs in the cache of the Sluice checkout
 * this package runs from, fetched with Maven if absent. An installed package has no checkout.
 */
function cachedKafkaClasspath(lookup: ClientLookup, fetchJars: boolean): string {
  const root = folderAbove(join('tools', 'kafka', 'kafka-version'));
  const missing = 'no kafka-clients jars: give --kafka-clients with the libs/ folder of a Kafka release (or a classpath)';
  if (root === null) throw new ClientUnavailableError('java', missing);
  const versionFile = join(root, 'tools', 'kafka', 'kafka-version');
  const fetchScript = join(root, 'tools', 'kafka', 'fetch-kafka.sh');
  const version = readFileSync(versionFile, 'utf8').trim();
  const libs = join(root, '.cache', 'kafka', version, 'libs');
  if (existsSync(join(root, '.cache', 'kafka', version, '.complete')) && hasKafkaClientsJar(libs)) return join(libs, '*');
  if (!fetchJars) throw new ClientUnavailableError('java', `${missing}, or name --client java to fetch Kafka ${version}'s with Maven`);
  if (!existsSync(fetchScript) || !runs('mvn', ['-v']))
    throw new ClientUnavailableError('java', `${missing}, or install Maven (apt-get install maven) to fetch Kafka ${version}'s`);
  lookup.note(`fetching Kafka ${version}'s jars with Maven into ${libs} (once)`);
  const fetched = spawnSync(fetchScript, [version], { stdio: ['ignore', 'ignore', 'pipe'], timeout: FETCH_TIMEOUT_MS, encoding: 'utf8' });
  if (fetched.status !== 0 || !hasKafkaClientsJar(libs)) {
    throw new ClientUnavailableError(
      'java',
      `fetching Kafka ${version}'s jars failed: ${lastLine(fetched.error?.message ?? fetched.stderr)}`,
    );
  }
  return join(libs, '*');
}

function librdkafkaDriver(lookup: ClientLookup): DriverCommand {
  const source = join(packageRoot(), 'drivers', 'tune-driver.c');
  const binary = join(lookup.cacheDir, `tune-driver-librdkafka-${sourceHash(source)}`);
  if (existsSync(binary)) return { client: 'librdkafka', command: binary, args: [] };
  const cc = process.env['CC'] ?? 'cc';
  if (!runs(cc, ['--version']))
    throw new ClientUnavailableError(
      'librdkafka',
      `no C compiler (${cc}) to build the librdkafka driver (apt-get install build-essential librdkafka-dev)`,
    );
  mkdirSync(lookup.cacheDir, { recursive: true });
  lookup.note(`compiling the librdkafka driver into ${binary} (once)`);
  const partial = `${binary}.${process.pid}.tmp`;
  const built = spawnSync(cc, ['-O2', '-o', partial, source, '-lrdkafka', '-lpthread'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: COMPILE_TIMEOUT_MS,
    encoding: 'utf8',
  });
  if (built.status !== 0) {
    const why = /rdkafka\.h|lrdkafka/.test(built.stderr ?? '')
      ? "librdkafka's headers or library are missing (apt-get install librdkafka-dev)"
      : lastLine(built.error?.message ?? built.stderr);
    throw new ClientUnavailableError('librdkafka', `compiling the driver failed: ${why}`);
  }
  renameSync(partial, binary);
  return { client: 'librdkafka', command: binary, args: [] };
}

function lastLine(text: string | null | undefined): string {
  return (text ?? '').trim().split('\n').pop() ?? '';
}
