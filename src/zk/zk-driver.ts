/**
 * The only module that touches the npm package `node-zookeeper-client` (pure JavaScript,
 * ZooKeeper wire protocol 3.4+): it declares the few parts of the package this project uses,
 * with types, and turns its callbacks, Buffers and numeric codes into promises, `ZkStat` and
 * typed `ZkError`s. Everything else goes through `ZkSession`.
 *
 * Why this package and not the native `zookeeper` (7.3.0): that one builds, but its binding has
 * no multi-op, and every controller write is a multi guarded by the controller epoch's version.
 */
import { createRequire } from 'node:module';
import { Logger } from '../common/logger.js';
import { ZkCode, ZkError, zkErrorFromCode } from './zk-errors.js';
import type { CreateMode, ZkNode, ZkOp, ZkOpResult, ZkStat, ZkState, ZkWatcher, ZkWatchEventType } from './zk-types.js';

// --- The package's shapes, as far as they are used here ---

interface NzkStat {
  readonly czxid: Buffer;
  readonly mzxid: Buffer;
  readonly ctime: Buffer;
  readonly mtime: Buffer;
  readonly version: number;
  readonly cversion: number;
  readonly ephemeralOwner: Buffer;
  readonly dataLength: number;
  readonly numChildren: number;
}
/** The package's `Exception` (with a code), or a plain Error from its argument assertions. */
interface NzkFailure {
  readonly code?: unknown;
  readonly message?: unknown;
}
type NzkCallback<R extends unknown[]> = (error: NzkFailure | null | undefined, ...result: R) => void;
interface NzkEvent {
  readonly type: number;
  readonly path: string;
}
interface NzkState {
  readonly code: number;
}
interface NzkOpResult {
  readonly type: number;
  readonly err?: number;
  readonly path?: string;
  readonly stat?: NzkStat;
}
interface NzkTransaction {
  /** The queued operations; written to directly to work around the version-0 bug (see `multi`). */
  readonly ops: { version?: number }[];
  create(path: string, data: Buffer | undefined, mode: number): NzkTransaction;
  check(path: string, version: number): NzkTransaction;
  setData(path: string, data: Buffer | null, version: number): NzkTransaction;
  remove(path: string, version: number): NzkTransaction;
  commit(callback: (error: NzkFailure | null | undefined, results?: readonly NzkOpResult[]) => void): void;
}
/**
 * The package's connection manager: touched to see when the server last sent anything (the read
 * timeout) and, in `abandon`, to silence a reconnect attempt still under way when a session is
 * closed while disconnected.
 */
interface NzkConnectionManager {
  socket?: { destroy(): void; readonly destroyed: boolean; readonly connecting: boolean };
  onSocketConnected: (this: NzkConnectionManager) => void;
  onSocketData: (this: NzkConnectionManager, data: Buffer) => void;
}
interface NzkClient {
  readonly connectionManager: NzkConnectionManager;
  connect(): void;
  close(): void;
  on(event: 'state', listener: (state: NzkState) => void): unknown;
  getSessionId(): Buffer;
  getSessionTimeout(): number;
  create(path: string, data: Buffer | undefined, mode: number, callback: NzkCallback<[string]>): void;
  getData(
    path: string,
    watcher: ((event: NzkEvent) => void) | undefined,
    callback: NzkCallback<[Buffer | null | undefined, NzkStat]>,
  ): void;
  getChildren(path: string, watcher: ((event: NzkEvent) => void) | undefined, callback: NzkCallback<[string[]]>): void;
  exists(path: string, watcher: ((event: NzkEvent) => void) | undefined, callback: NzkCallback<[NzkStat | null | undefined]>): void;
  setData(path: string, data: Buffer | null, version: number, callback: NzkCallback<[NzkStat]>): void;
  remove(path: string, version: number, callback: NzkCallback<[]>): void;
  transaction(): NzkTransaction;
}
interface NzkModule {
  createClient(connect: string, options: { sessionTimeout: number; spinDelay: number; retries: number }): NzkClient;
}

const nzk = createRequire(import.meta.url)('node-zookeeper-client') as NzkModule;

// The package's constants, which are ZooKeeper's own (CreateMode flags, Watcher.Event types,
// OpCode values in multi results, client states).
const CREATE_FLAGS: Record<CreateMode, number> = { persistent: 0, ephemeral: 1, persistent_sequential: 2, ephemeral_sequential: 3 };
const EVENT_TYPES: Record<number, ZkWatchEventType> = { 1: 'created', 2: 'deleted', 3: 'data_changed', 4: 'children_changed' };
const OP_CREATE = 1;
const OP_DELETE = 2;
const OP_SET_DATA = 5;
const OP_CHECK = 13;
const OP_ERROR = -1;
const STATES: Record<number, ZkState> = { 0: 'disconnected', 3: 'connected', 4: 'auth_failed', [-122]: 'expired' };

/** How long the package waits before it tries the servers again after trying them all. */
const RECONNECT_SPIN_DELAY_MS = 200;
/** How many times per read timeout the watchdog looks: a dead server is noticed within 1¼ read timeouts. */
const READ_TIMEOUT_CHECKS = 4;

const log = new Logger('zk');

function toStat(s: NzkStat): ZkStat {
  return {
    version: s.version,
    cversion: s.cversion,
    czxid: s.czxid.readBigInt64BE(0),
    mzxid: s.mzxid.readBigInt64BE(0),
    ctime: Number(s.ctime.readBigInt64BE(0)),
    mtime: Number(s.mtime.readBigInt64BE(0)),
    ephemeralOwner: s.ephemeralOwner.readBigInt64BE(0),
    dataLength: s.dataLength,
    numChildren: s.numChildren,
  };
}

function toError(failure: NzkFailure, path: string | undefined): ZkError {
  if (typeof failure.code === 'number') return zkErrorFromCode(failure.code, path === undefined ? {} : { path });
  // The package's own argument checks (path syntax, data over 1 MiB) throw plain Errors.
  return new ZkError(
    ZkCode.BAD_ARGUMENTS,
    `invalid ZooKeeper request${path === undefined ? '' : ` for ${path}`}: ${String(failure.message)}`,
    {
      ...(path === undefined ? {} : { path }),
      cause: failure,
    },
  );
}

function wrapWatcher(watcher: ZkWatcher | undefined): ((event: NzkEvent) => void) | undefined {
  if (watcher === undefined) return undefined;
  // A fresh function per call: the package drops a second registration of the same function on
  // the same path, and two callers watching one znode must both be told.
  return (event) => {
    const type = EVENT_TYPES[event.type];
    if (type !== undefined) watcher({ type, path: event.path });
  };
}

/** Runs one package call as a promise; its synchronous argument errors reject too. */
function call<T>(path: string | undefined, start: (settle: (error: NzkFailure | null | undefined, value?: T) => void) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    try {
      start((error, value) => (error ? reject(toError(error, path)) : resolve(value as T)));
    } catch (err) {
      reject(toError(err as NzkFailure, path));
    }
  });
}

function toOpResult(r: NzkOpResult): ZkOpResult {
  switch (r.type) {
    case OP_CREATE:
      return { type: 'create', path: r.path ?? '' };
    case OP_SET_DATA:
      return { type: 'set', stat: toStat(r.stat!) };
    case OP_DELETE:
      return { type: 'delete' };
    case OP_CHECK:
      return { type: 'check' };
    default:
      throw new ZkError(ZkCode.SYSTEM_ERROR, `unexpected multi result type ${r.type}`);
  }
}

/**
 * One client of the package: one ZooKeeper session, reconnected by the package after a
 * connection loss until the server declares the session expired.
 */
export class ZkDriver {
  private readonly client: NzkClient;
  /** When the server last sent a byte on the current connection (or, before it did, when the connection opened). */
  private lastHeardMs = 0;
  private watchdog: NodeJS.Timeout | null = null;
  private closing = false;

  constructor(
    private readonly connectString: string,
    sessionTimeoutMs: number,
    onState: (state: ZkState) => void,
  ) {
    // retries 0: a connection loss is reported, not silently retried; KafkaZkClient decides.
    this.client = nzk.createClient(connectString, { sessionTimeout: sessionTimeoutMs, spinDelay: RECONNECT_SPIN_DELAY_MS, retries: 0 });
    this.client.on('state', (state) => {
      const mapped = STATES[state.code];
      if (mapped === undefined) return;
      if (mapped === 'expired' || mapped === 'auth_failed' || (this.closing && mapped === 'disconnected')) this.stopWatchdog();
      onState(mapped);
    });
    this.noteServerTraffic();
  }

  connect(): void {
    this.client.connect();
    this.startWatchdog();
  }

  /** Sends closeSession (the server then deletes the session's ephemerals) and stops reconnecting. */
  close(): void {
    // The watchdog stays until the connection closes: a silent server must not hold the socket open.
    this.closing = true;
    this.client.close();
  }

  /**
   * The package pings after a third of the session timeout of socket inactivity, but its own
   * pings count as activity, so a server that accepts bytes and never answers (a paused
   * process, a black-holing network) leaves the connection open and every request pending
   * forever. So the read timeout is kept here as the Java client keeps it: nothing received for
   * two thirds of the session timeout closes the connection, which fails the requests in flight
   * with a connection loss and makes the package reconnect (to this server or the next). Also
   * while the handshake is unanswered, which the package's connect timeout no longer covers once
   * TCP is up.
   */
  private noteServerTraffic(): void {
    const manager = this.client.connectionManager;
    const connected = manager.onSocketConnected;
    const received = manager.onSocketData;
    const note = (): void => {
      this.lastHeardMs = Date.now();
    };
    manager.onSocketConnected = function (this: NzkConnectionManager) {
      note();
      connected.call(this);
    };
    manager.onSocketData = function (this: NzkConnectionManager, data: Buffer) {
      note();
      received.call(this, data);
    };
  }

  private get readTimeoutMs(): number {
    return Math.floor((this.client.getSessionTimeout() * 2) / 3);
  }

  private startWatchdog(): void {
    if (this.watchdog !== null) return;
    this.watchdog = setInterval(() => this.checkReadTimeout(), Math.max(10, Math.floor(this.readTimeoutMs / READ_TIMEOUT_CHECKS)));
    this.watchdog.unref();
  }

  private stopWatchdog(): void {
    if (this.watchdog !== null) clearInterval(this.watchdog);
    this.watchdog = null;
  }

  private checkReadTimeout(): void {
    const socket = this.client.connectionManager.socket;
    if (socket === undefined || socket.destroyed || socket.connecting) return;
    const silentMs = Date.now() - this.lastHeardMs;
    if (silentMs <= this.readTimeoutMs) return;
    log.warn('ZooKeeper server sent nothing within the read timeout; closing the connection', {
      servers: this.connectString,
      silentMs,
      readTimeoutMs: this.readTimeoutMs,
    });
    socket.destroy();
  }

  /**
   * Stops a client that is not connected, for good (the server expires its session, if any).
   * The package's own close() leaves a reconnect attempt running, and if that one connects, it
   * reads the server's handshake as a reply and throws from its socket handler, out of reach of
   * any caller: so the attempt's socket is destroyed, and a later one closes itself unheard.
   */
  abandon(): void {
    this.stopWatchdog();
    this.client.close();
    const manager = this.client.connectionManager;
    manager.onSocketConnected = function (this: NzkConnectionManager) {
      this.socket?.destroy();
    };
    manager.onSocketData = () => undefined;
    manager.socket?.destroy();
  }

  get sessionId(): bigint {
    return this.client.getSessionId().readBigInt64BE(0);
  }

  /** The timeout the server granted, which it bounds by its min/max session timeouts. */
  get sessionTimeoutMs(): number {
    return this.client.getSessionTimeout();
  }

  create(path: string, data: Buffer | null, mode: CreateMode): Promise<string> {
    return call(path, (settle) => this.client.create(path, data ?? undefined, CREATE_FLAGS[mode], (e, created) => settle(e, created)));
  }

  get(path: string, watcher?: ZkWatcher): Promise<ZkNode> {
    return call(path, (settle) =>
      this.client.getData(path, wrapWatcher(watcher), (e, data, stat) =>
        settle(e, e ? undefined : { data: data && data.length > 0 ? data : null, stat: toStat(stat) }),
      ),
    );
  }

  getChildren(path: string, watcher?: ZkWatcher): Promise<string[]> {
    return call(path, (settle) => this.client.getChildren(path, wrapWatcher(watcher), (e, children) => settle(e, children)));
  }

  exists(path: string, watcher?: ZkWatcher): Promise<ZkStat | null> {
    return call(path, (settle) => this.client.exists(path, wrapWatcher(watcher), (e, stat) => settle(e, stat ? toStat(stat) : null)));
  }

  set(path: string, data: Buffer | null, version: number): Promise<ZkStat> {
    // The package's setData cannot send null (it reads data.length); zero bytes read back as null too.
    return call(path, (settle) =>
      this.client.setData(path, data ?? Buffer.alloc(0), version, (e, stat) => settle(e, e ? undefined : toStat(stat))),
    );
  }

  delete(path: string, version: number): Promise<void> {
    return call(path, (settle) => this.client.remove(path, version, (e) => settle(e)));
  }

  /** All operations or none; a failure rejects with the failing operation's error and `opIndex`. */
  multi(ops: readonly ZkOp[]): Promise<ZkOpResult[]> {
    return new Promise<ZkOpResult[]>((resolve, reject) => {
      try {
        const tx = this.client.transaction();
        for (const op of ops) {
          if (op.type === 'create') {
            tx.create(op.path, op.data ?? undefined, CREATE_FLAGS[op.mode ?? 'persistent']);
            continue;
          }
          if (op.type === 'check') tx.check(op.path, op.version);
          else if (op.type === 'set') tx.setData(op.path, op.data, op.version);
          else tx.remove(op.path, op.version);
          // The package turns an expected version of 0 into -1 (`version || -1`, its issue #67),
          // which would make a check on a freshly created znode match anything.
          tx.ops[tx.ops.length - 1]!.version = op.version;
        }
        tx.commit((error, results) => {
          const failed =
            results?.findIndex((r) => r.type === OP_ERROR && r.err !== ZkCode.OK && r.err !== ZkCode.RUNTIME_INCONSISTENCY) ?? -1;
          if (failed >= 0) {
            const code = results![failed]!.err!;
            reject(zkErrorFromCode(code, { path: ops[failed]!.path, opIndex: failed }));
          } else if (error) {
            reject(toError(error, undefined));
          } else {
            resolve((results ?? []).map(toOpResult));
          }
        });
      } catch (err) {
        reject(toError(err as NzkFailure, undefined));
      }
    });
  }
}
