/**
 * Starts and stops a standalone ZooKeeper server (Debian's package `zookeeper`, 3.8) as a child
 * process: for the integration tests and for `sluice cluster up`.
 *
 * The server runs `ZooKeeperServerMain` on a generated `zoo.cfg` in a fresh temporary folder
 * (data under it unless `dataDir` is given), listens on 127.0.0.1 only, has the admin HTTP server
 * off and only the `ruok`, `srvr`, `mntr` and `stat` four-letter words on. It counts as started
 * once `ruok` answers `imok`. Its output goes to `zookeeper.log` in the temporary folder; a failed
 * start quotes the end of it. `stop()` sends SIGTERM to the PID, SIGKILL if it lingers, and
 * removes the temporary folder (never a caller's `dataDir`).
 *
 * The default tick of 500 ms lets sessions be as short as 1 s (ZooKeeper's minimum is two ticks),
 * which failure tests need; the maximum is raised to 60 s so Kafka-like timeouts (18 s) are
 * granted as asked.
 */
import { processAlive } from '../common/process-alive.js';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, closeSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { connect as connectTcp } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../common/free-port.js';

/** Where Debian's packages put the server and its configuration. */
export const ZOOKEEPER_JAR = '/usr/share/java/zookeeper.jar';
const ZOOKEEPER_CONF_DIR = '/etc/zookeeper/conf';
/**
 * slf4j's simple binding (Debian `libslf4j-java`, a dependency of `zookeeper`): without a binding
 * the server logs nothing, and a failed start would say nothing about why.
 */
const SLF4J_SIMPLE_JAR = '/usr/share/java/slf4j-simple.jar';
const MAIN_CLASS = 'org.apache.zookeeper.server.ZooKeeperServerMain';
const HOST = '127.0.0.1';

const DEFAULT_TICK_MS = 500;
const DEFAULT_START_TIMEOUT_MS = 30_000;
const STOP_GRACE_MS = 5_000;
const POLL_MS = 50;
const PROBE_TIMEOUT_MS = 15_000;
const LOG_TAIL_LINES = 20;
/** Tries with a fresh port when the one picked was taken in between. */
const PORT_ATTEMPTS = 3;

export interface ZooKeeperServerOptions {
  /** Where snapshots and transaction logs go; default a folder inside the temporary one. */
  readonly dataDir?: string;
  /** Default: a free port picked at start. */
  readonly port?: number;
  readonly tickTimeMs?: number;
  readonly startTimeoutMs?: number;
  /** The Java launcher; default `$JAVA` or `java`. */
  readonly java?: string;
  /** Leave the server running after this process exits (for `sluice cluster up`). */
  readonly detached?: boolean;
}

export interface ZooKeeperServer {
  /** The connect string for clients: `127.0.0.1:<port>`. */
  readonly connect: string;
  readonly port: number;
  readonly pid: number;
  readonly dataDir: string;
  /** The server's combined output. */
  readonly logFile: string;
  stop(): Promise<void>;
}

export class ZooKeeperStartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ZooKeeperStartError';
  }
}

function javaCommand(options: { java?: string }): string {
  return options.java ?? process.env['JAVA'] ?? 'java';
}

/**
 * Why a ZooKeeper server cannot be started here, naming what to install, or undefined when it can.
 */
export function zooKeeperInstallProblem(options: { java?: string } = {}): string | undefined {
  const java = javaCommand(options);
  if (spawnSync(java, ['-version'], { stdio: 'ignore', timeout: PROBE_TIMEOUT_MS }).status !== 0) {
    return `${java} is not installed (apt-get install zookeeper, which brings a Java runtime)`;
  }
  if (!existsSync(ZOOKEEPER_JAR)) return `${ZOOKEEPER_JAR} is missing (apt-get install zookeeper)`;
  return undefined;
}

/** Sends a four-letter word and returns the whole answer ('' if the connection fails). */
export function fourLetterWord(port: number, word: string, timeoutMs = 1_000): Promise<string> {
  return new Promise((resolve) => {
    let answer = '';
    const socket = connectTcp({ host: HOST, port });
    socket.setTimeout(timeoutMs, () => socket.destroy());
    socket.on('connect', () => socket.end(word));
    socket.on('data', (chunk) => (answer += chunk.toString('utf8')));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(answer));
  });
}

function zooCfg(dataDir: string, port: number, tickTimeMs: number): string {
  return [
    `tickTime=${tickTimeMs}`,
    `dataDir=${dataDir}`,
    `clientPort=${port}`,
    `clientPortAddress=${HOST}`,
    `minSessionTimeout=${2 * tickTimeMs}`,
    'maxSessionTimeout=60000',
    'maxClientCnxns=0',
    'admin.enableServer=false',
    '4lw.commands.whitelist=ruok,srvr,mntr,stat',
    '',
  ].join('\n');
}

function logTail(logFile: string): string {
  try {
    return readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-LOG_TAIL_LINES).join('\n');
  } catch {
    return '(no output)';
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (processAlive(pid)) {
    if (Date.now() >= deadline) return false;
    await sleep(POLL_MS);
  }
  return true;
}

/** Starts a server and resolves once it answers `ruok`; see the module comment. */
export async function startZooKeeper(options: ZooKeeperServerOptions = {}): Promise<ZooKeeperServer> {
  const problem = zooKeeperInstallProblem(options);
  if (problem !== undefined) throw new ZooKeeperStartError(`cannot start ZooKeeper: ${problem}`);
  let lastError: ZooKeeperStartError | undefined;
  for (let attempt = 0; attempt < (options.port === undefined ? PORT_ATTEMPTS : 1); attempt++) {
    try {
      return await startOnce(options, options.port ?? (await freePort()));
    } catch (err) {
      if (!(err instanceof ZooKeeperStartError)) throw err;
      lastError = err;
    }
  }
  throw lastError!;
}

async function startOnce(options: ZooKeeperServerOptions, port: number): Promise<ZooKeeperServer> {
  const tmp = mkdtempSync(join(tmpdir(), 'sluice-zk-'));
  const dataDir = options.dataDir ?? join(tmp, 'data');
  mkdirSync(dataDir, { recursive: true });
  const cfgFile = join(tmp, 'zoo.cfg');
  const logFile = join(tmp, 'zookeeper.log');
  writeFileSync(cfgFile, zooCfg(dataDir, port, options.tickTimeMs ?? DEFAULT_TICK_MS));

  const classpath = [ZOOKEEPER_CONF_DIR, ZOOKEEPER_JAR, ...(existsSync(SLF4J_SIMPLE_JAR) ? [SLF4J_SIMPLE_JAR] : [])].join(':');
  const logFd = openSync(logFile, 'a');
  const child = spawn(
    javaCommand(options),
    ['-Xms32m', '-Xmx256m', '-XX:+UseSerialGC', '-Dorg.slf4j.simpleLogger.defaultLogLevel=warn', '-cp', classpath, MAIN_CLASS, cfgFile],
    { stdio: ['ignore', logFd, logFd], detached: options.detached === true },
  );
  closeSync(logFd);
  const pid = child.pid;
  if (pid === undefined) {
    rmSync(tmp, { recursive: true, force: true });
    throw new ZooKeeperStartError(`could not spawn ${javaCommand(options)}`);
  }
  if (options.detached === true) child.unref();
  let exited = false;
  child.once('exit', () => (exited = true));

  const stop = async (): Promise<void> => {
    if (processAlive(pid)) {
      process.kill(pid, 'SIGTERM');
      if (!(await waitForExit(pid, STOP_GRACE_MS))) {
        process.kill(pid, 'SIGKILL');
        await waitForExit(pid, STOP_GRACE_MS);
      }
    }
    rmSync(tmp, { recursive: true, force: true });
  };

  const deadline = Date.now() + (options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS);
  for (;;) {
    if ((await fourLetterWord(port, 'ruok')) === 'imok') break;
    if (exited || Date.now() >= deadline) {
      const why = exited ? 'exited' : `did not answer ruok within ${options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS} ms`;
      const tail = logTail(logFile);
      await stop();
      throw new ZooKeeperStartError(`ZooKeeper on port ${port} ${why}; its output ends:\n${tail}`);
    }
    await sleep(POLL_MS);
  }
  return { connect: `${HOST}:${port}`, port, pid, dataDir, logFile, stop };
}
