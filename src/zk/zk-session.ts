/**
 * One ZooKeeper session as promises: the bottom of Sluice's cluster mode, which everything that
 * reads or writes ZooKeeper goes through (usually via `KafkaZkClient`).
 *
 * Life cycle: `ZkSession.connect` resolves once the server granted a session (creating the
 * chroot first, as Kafka does), or fails with `ZkConnectTimeoutError`. While the session lives,
 * the client reconnects by itself after a connection loss (state `disconnected`, then
 * `connected` again; requests in flight at the loss fail with `ZkConnectionLossError`, requests
 * made meanwhile wait). A server that sends nothing for two thirds of the session timeout counts
 * as lost (the read timeout, in `zk-driver.ts`). Only the server expires a session, and says so
 * when the client reaches it again: a client that cannot reach it stays `disconnected` (it does
 * not guess: a ZooKeeper restarted after a session timeout keeps its sessions, and every broker
 * re-registering at once would move every leadership). A session that the server expired stays dead: every pending and later
 * request fails with `ZkSessionExpiredError`, its ephemeral znodes are gone and its watches never
 * fire — the owner opens a new session and re-registers (Kafka's `afterInitializingSession`).
 *
 * Watches are ZooKeeper's: one-shot, set by a read, fired for the first change after it. A read
 * of a znode that does not exist leaves no watch, except `exists`, which then watches creation.
 *
 * Thread: main (any event loop; a session is not shared across threads).
 */
import { Logger } from '../common/logger.js';
import { ZkDriver } from './zk-driver.js';
import {
  ZkClosedError,
  ZkCode,
  ZkConnectionLossError,
  ZkConnectTimeoutError,
  ZkError,
  ZkNodeExistsError,
  ZkNoNodeError,
  ZkSessionExpiredError,
} from './zk-errors.js';
import type { CreateMode, ZkNode, ZkOp, ZkOpResult, ZkStat, ZkState, ZkWatcher } from './zk-types.js';

export interface ZkSessionOptions {
  /** `host:port[,host:port…][/chroot]`, as Kafka's `zookeeper.connect`. */
  readonly connect: string;
  /** Asked of the server, which bounds it by its own min/max (2 and 20 ticks by default). */
  readonly sessionTimeoutMs: number;
  /** How long `connect` waits for a session before failing. */
  readonly connectionTimeoutMs: number;
}

/** How long `close()` waits for the server to acknowledge closeSession. */
const CLOSE_ACK_TIMEOUT_MS = 3_000;

const log = new Logger('zk');

function isTerminal(state: ZkState): boolean {
  return state === 'expired' || state === 'closed' || state === 'auth_failed';
}

/** Splits `hosts/chroot` at the first '/'; a chroot of just '/' is none. */
function splitConnectString(connect: string): { servers: string; chroot: string | undefined } {
  const slash = connect.indexOf('/');
  const servers = slash < 0 ? connect : connect.slice(0, slash);
  if (servers.trim() === '') throw new ZkError(ZkCode.BAD_ARGUMENTS, `ZooKeeper connect string '${connect}' names no server`);
  const chroot = slash < 0 ? undefined : connect.slice(slash).replace(/\/+$/, '');
  return { servers, chroot: chroot === '' ? undefined : chroot };
}

function parentOf(path: string): string | undefined {
  const slash = path.lastIndexOf('/');
  return slash <= 0 ? undefined : path.slice(0, slash);
}

export class ZkSession {
  readonly connectString: string;
  private readonly driver: ZkDriver;
  private current: ZkState = 'disconnected';
  private readonly listeners = new Set<(state: ZkState) => void>();
  /** Rejecters of the requests in flight, so that none hangs past the session's end. */
  private readonly pending = new Set<(err: ZkError) => void>();
  /** Set while `close()` waits for the server's acknowledgement. */
  private closeAcknowledged: (() => void) | undefined;

  private constructor(connect: string, sessionTimeoutMs: number) {
    this.connectString = connect;
    try {
      this.driver = new ZkDriver(connect, sessionTimeoutMs, (state) => this.onDriverState(state));
    } catch (err) {
      throw new ZkError(ZkCode.BAD_ARGUMENTS, `invalid ZooKeeper connect string '${connect}': ${(err as Error).message}`, { cause: err });
    }
  }

  /** Opens a session, creating the chroot (and its parents) first if it is missing. */
  static async connect(options: ZkSessionOptions): Promise<ZkSession> {
    const { servers, chroot } = splitConnectString(options.connect);
    if (chroot !== undefined) {
      const root = await ZkSession.open(servers, options);
      try {
        await root.ensurePath(chroot);
      } finally {
        await root.close();
      }
    }
    return ZkSession.open(options.connect, options);
  }

  private static open(connect: string, options: ZkSessionOptions): Promise<ZkSession> {
    const session = new ZkSession(connect, options.sessionTimeoutMs);
    return new Promise<ZkSession>((resolve, reject) => {
      const timer = setTimeout(() => {
        unsubscribe();
        void session.close();
        reject(new ZkConnectTimeoutError(connect, options.connectionTimeoutMs));
      }, options.connectionTimeoutMs);
      const unsubscribe = session.onStateChange((state) => {
        if (state !== 'connected' && !isTerminal(state)) return;
        clearTimeout(timer);
        unsubscribe();
        if (state === 'connected') resolve(session);
        else reject(new ZkError(ZkCode.AUTH_FAILED, `ZooKeeper at ${connect} refused the session (${state})`));
      });
      session.driver.connect();
    });
  }

  /** The server's id for this session: the `ephemeralOwner` of the znodes it creates. */
  get sessionId(): bigint {
    return this.driver.sessionId;
  }

  /** The session timeout the server granted. */
  get sessionTimeoutMs(): number {
    return this.driver.sessionTimeoutMs;
  }

  get state(): ZkState {
    return this.current;
  }

  /** Calls `listener` on every state change; returns the function that stops it. */
  onStateChange(listener: (state: ZkState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Calls `listener` once if the server expires the session; returns the function that stops it. */
  onSessionExpired(listener: () => void): () => void {
    return this.onStateChange((state) => {
      if (state === 'expired') listener();
    });
  }

  /** Resolves when connected; rejects if the session ends first. */
  waitUntilConnected(): Promise<void> {
    if (this.current === 'connected') return Promise.resolve();
    const ended = this.endedError();
    if (ended) return Promise.reject(ended);
    return new Promise<void>((resolve, reject) => {
      const unsubscribe = this.onStateChange((state) => {
        if (state === 'connected') {
          unsubscribe();
          resolve();
        } else if (isTerminal(state)) {
          unsubscribe();
          reject(this.endedError()!); // defined in every terminal state
        }
      });
    });
  }

  /**
   * Runs `op`, and runs it again after each connection loss once reconnected (Kafka's
   * `retryRequestsUntilConnected`). A write whose answer was lost may have been applied, so
   * its retry can meet its own effect (`ZkNodeExistsError`, `ZkBadVersionError`): callers of
   * non-idempotent writes check for that.
   */
  async retrying<T>(op: () => Promise<T>): Promise<T> {
    for (;;) {
      try {
        return await op();
      } catch (err) {
        if (!(err instanceof ZkConnectionLossError)) throw err;
        await this.waitUntilConnected();
      }
    }
  }

  /** Creates a znode; returns its path (with the sequence number for sequential modes). */
  create(path: string, data: Buffer | null, mode: CreateMode = 'persistent'): Promise<string> {
    return this.run(() => this.driver.create(path, data, mode));
  }

  /** The znode's data and stat, or null if it does not exist (then no watch is left). */
  get(path: string, watch?: ZkWatcher): Promise<ZkNode | null> {
    return this.run(() => this.driver.get(path, watch)).catch(nullIfNoNode);
  }

  /** The names of the znode's children, in no order, or null if it does not exist (then no watch is left). */
  getChildren(path: string, watch?: ZkWatcher): Promise<string[] | null> {
    return this.run(() => this.driver.getChildren(path, watch)).catch(nullIfNoNode);
  }

  /** The znode's stat, or null; the watch is left either way (for creation if it is absent). */
  exists(path: string, watch?: ZkWatcher): Promise<ZkStat | null> {
    return this.run(() => this.driver.exists(path, watch));
  }

  /** Replaces the data if the version matches (`ANY_VERSION` matches any); returns the new version. */
  async set(path: string, data: Buffer | null, expectedVersion: number): Promise<number> {
    return (await this.run(() => this.driver.set(path, data, expectedVersion))).version;
  }

  delete(path: string, expectedVersion: number): Promise<void> {
    return this.run(() => this.driver.delete(path, expectedVersion));
  }

  /**
   * Applies every operation or none. A failure rejects with the typed error of the operation that
   * failed, whose `opIndex` says which one.
   */
  multi(ops: readonly ZkOp[]): Promise<ZkOpResult[]> {
    return this.run(() => this.driver.multi(ops));
  }

  /**
   * Creates `path` with `data`, creating missing parents (persistent, no data) first. Fails with
   * `ZkNodeExistsError` if `path` exists, as Kafka's `createRecursive`.
   */
  async createRecursive(path: string, data: Buffer | null, mode: CreateMode = 'persistent'): Promise<string> {
    try {
      return await this.create(path, data, mode);
    } catch (err) {
      const parent = parentOf(path);
      if (!(err instanceof ZkNoNodeError) || parent === undefined) throw err;
      await this.ensurePath(parent);
      return this.create(path, data, mode);
    }
  }

  /** Makes sure a persistent `path` exists, creating it and its parents without data as needed. */
  async ensurePath(path: string): Promise<void> {
    try {
      await this.createRecursive(path, null);
    } catch (err) {
      if (!(err instanceof ZkNodeExistsError)) throw err;
    }
  }

  /**
   * Ends the session: the server deletes its ephemeral znodes before it acknowledges. Requests
   * already made are answered first; later ones fail with `ZkClosedError`.
   */
  async close(): Promise<void> {
    if (this.current === 'closed') return;
    const wasConnected = this.current === 'connected';
    const endedBefore = isTerminal(this.current);
    this.setState('closed');
    if (endedBefore) return;
    if (wasConnected) {
      let timer: NodeJS.Timeout | undefined;
      const acknowledged = new Promise<void>((resolve) => {
        this.closeAcknowledged = resolve;
        timer = setTimeout(resolve, CLOSE_ACK_TIMEOUT_MS);
      });
      this.driver.close();
      await acknowledged;
      clearTimeout(timer);
    } else {
      this.driver.abandon();
    }
    this.rejectPending(new ZkClosedError());
  }

  private run<T>(start: () => Promise<T>): Promise<T> {
    const ended = this.endedError();
    if (ended) return Promise.reject(ended);
    return new Promise<T>((resolve, reject) => {
      this.pending.add(reject);
      start().then(
        (value) => {
          this.pending.delete(reject);
          resolve(value);
        },
        (err: unknown) => {
          this.pending.delete(reject);
          reject(err);
        },
      );
    });
  }

  private endedError(): ZkError | undefined {
    switch (this.current) {
      case 'expired':
        return new ZkSessionExpiredError();
      case 'closed':
        return new ZkClosedError();
      case 'auth_failed':
        return new ZkError(ZkCode.AUTH_FAILED, 'ZooKeeper refused the session credentials');
      default:
        return undefined;
    }
  }

  private onDriverState(state: ZkState): void {
    if (this.current === 'closed') {
      if (state === 'disconnected') this.closeAcknowledged?.();
      return;
    }
    if (isTerminal(this.current)) return;
    this.setState(state);
    const ended = this.endedError();
    if (ended) this.rejectPending(ended);
  }

  private setState(state: ZkState): void {
    if (state === this.current) return;
    this.current = state;
    for (const listener of [...this.listeners]) {
      try {
        listener(state);
      } catch (err) {
        log.error('ZooKeeper state listener failed', { state, error: String(err) });
      }
    }
  }

  private rejectPending(err: ZkError): void {
    for (const reject of [...this.pending]) reject(err);
    this.pending.clear();
  }
}

function nullIfNoNode(err: unknown): null {
  if (err instanceof ZkNoNodeError) return null;
  throw err;
}
