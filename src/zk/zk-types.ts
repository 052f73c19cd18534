/** The vocabulary of one ZooKeeper session, shared by the driver and `ZkSession`. */

export type CreateMode = 'persistent' | 'ephemeral' | 'persistent_sequential' | 'ephemeral_sequential';

/** `expectedVersion` that matches any version (ZooKeeper's -1). */
export const ANY_VERSION = -1;

/** The parts of ZooKeeper's `Stat` this project reads; zxids and session ids are 64-bit. */
export interface ZkStat {
  /** Data version: starts at 0, +1 on every set. */
  readonly version: number;
  /** Children version: +1 on every child created or deleted. */
  readonly cversion: number;
  /** The zxid of the transaction that created the znode (Kafka's broker epoch). */
  readonly czxid: bigint;
  readonly mzxid: bigint;
  /** Creation and last-modification times, ms since the epoch, by the server's clock. */
  readonly ctime: number;
  readonly mtime: number;
  /** The session that owns an ephemeral znode; 0n for a persistent one. */
  readonly ephemeralOwner: bigint;
  readonly dataLength: number;
  readonly numChildren: number;
}

export interface ZkNode {
  /** null when the znode holds no data (none, or zero bytes). */
  readonly data: Buffer | null;
  readonly stat: ZkStat;
}

export type ZkWatchEventType = 'created' | 'deleted' | 'data_changed' | 'children_changed';

export interface ZkWatchEvent {
  readonly type: ZkWatchEventType;
  readonly path: string;
}

/** A one-shot watch: called at most once, for the first change after it was set. */
export type ZkWatcher = (event: ZkWatchEvent) => void;

export type ZkOp =
  | { readonly type: 'check'; readonly path: string; readonly version: number }
  | { readonly type: 'create'; readonly path: string; readonly data: Buffer | null; readonly mode?: CreateMode }
  | { readonly type: 'set'; readonly path: string; readonly data: Buffer | null; readonly version: number }
  | { readonly type: 'delete'; readonly path: string; readonly version: number };

export type ZkOpResult =
  | { readonly type: 'check' }
  | { readonly type: 'create'; readonly path: string }
  | { readonly type: 'set'; readonly stat: ZkStat }
  | { readonly type: 'delete' };

/**
 * - `connected`: requests flow;
 * - `disconnected`: the connection dropped, the client is reconnecting and the session may live on;
 * - `expired`: the server ended the session (terminal);
 * - `closed`: `close()` was called (terminal);
 * - `auth_failed`: the server refused the credentials (terminal).
 */
export type ZkState = 'connected' | 'disconnected' | 'expired' | 'closed' | 'auth_failed';
