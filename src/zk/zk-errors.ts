/**
 * ZooKeeper's failures as typed errors, each carrying ZooKeeper's own numeric code (the values of
 * `KeeperException.Code`), so callers branch with `instanceof` and logs show the code ZooKeeper's
 * documentation and server logs use.
 */

/** ZooKeeper's result codes that this layer names (`KeeperException.Code`; CLOSING is the C client's). */
export const ZkCode = {
  OK: 0,
  SYSTEM_ERROR: -1,
  RUNTIME_INCONSISTENCY: -2,
  CONNECTION_LOSS: -4,
  OPERATION_TIMEOUT: -7,
  BAD_ARGUMENTS: -8,
  NO_NODE: -101,
  NO_AUTH: -102,
  BAD_VERSION: -103,
  NO_CHILDREN_FOR_EPHEMERALS: -108,
  NODE_EXISTS: -110,
  NOT_EMPTY: -111,
  SESSION_EXPIRED: -112,
  AUTH_FAILED: -115,
  CLOSING: -116,
} as const;

export interface ZkErrorOptions {
  /** The znode the failing operation named, when there is one. */
  readonly path?: string;
  /** In a failed `multi`, the index of the operation that failed. */
  readonly opIndex?: number;
  readonly cause?: unknown;
}

export class ZkError extends Error {
  readonly code: number;
  readonly path: string | undefined;
  readonly opIndex: number | undefined;

  constructor(code: number, message: string, options: ZkErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.path = options.path;
    this.opIndex = options.opIndex;
  }
}

export class ZkNoNodeError extends ZkError {
  constructor(options: ZkErrorOptions = {}) {
    super(ZkCode.NO_NODE, withPath('no such znode', options), options);
  }
}

export class ZkNodeExistsError extends ZkError {
  constructor(options: ZkErrorOptions = {}) {
    super(ZkCode.NODE_EXISTS, withPath('znode already exists', options), options);
  }
}

export class ZkBadVersionError extends ZkError {
  constructor(options: ZkErrorOptions = {}) {
    super(ZkCode.BAD_VERSION, withPath('znode version does not match the expected version', options), options);
  }
}

export class ZkNotEmptyError extends ZkError {
  constructor(options: ZkErrorOptions = {}) {
    super(ZkCode.NOT_EMPTY, withPath('znode has children', options), options);
  }
}

/** The connection dropped with the request in flight: it may or may not have been applied. */
export class ZkConnectionLossError extends ZkError {
  constructor(options: ZkErrorOptions = {}) {
    super(ZkCode.CONNECTION_LOSS, withPath('connection to ZooKeeper lost', options), options);
  }
}

/** The session is gone, and with it its ephemeral znodes and watches; only a new session helps. */
export class ZkSessionExpiredError extends ZkError {
  constructor(options: ZkErrorOptions = {}) {
    super(ZkCode.SESSION_EXPIRED, withPath('ZooKeeper session expired', options), options);
  }
}

/** No server of the connect string accepted a session within the connection timeout. */
export class ZkConnectTimeoutError extends ZkError {
  constructor(connect: string, timeoutMs: number) {
    super(ZkCode.OPERATION_TIMEOUT, `could not connect to ZooKeeper at ${connect} within ${timeoutMs} ms`);
  }
}

/** The session was closed by its owner; requests made after (or pending at) `close()` fail so. */
export class ZkClosedError extends ZkError {
  constructor(options: ZkErrorOptions = {}) {
    super(ZkCode.CLOSING, withPath('ZooKeeper session is closed', options), options);
  }
}

function withPath(message: string, options: ZkErrorOptions): string {
  const at = options.path === undefined ? '' : ` at ${options.path}`;
  const op = options.opIndex === undefined ? '' : ` (operation ${options.opIndex} of a multi)`;
  return `${message}${at}${op}`;
}

/** The typed error for a code ZooKeeper answered with. */
export function zkErrorFromCode(code: number, options: ZkErrorOptions = {}): ZkError {
  switch (code) {
    case ZkCode.NO_NODE:
      return new ZkNoNodeError(options);
    case ZkCode.NODE_EXISTS:
      return new ZkNodeExistsError(options);
    case ZkCode.BAD_VERSION:
      return new ZkBadVersionError(options);
    case ZkCode.NOT_EMPTY:
      return new ZkNotEmptyError(options);
    case ZkCode.CONNECTION_LOSS:
      return new ZkConnectionLossError(options);
    case ZkCode.SESSION_EXPIRED:
      return new ZkSessionExpiredError(options);
    default:
      return new ZkError(code, withPath(`ZooKeeper error ${code}`, options), options);
  }
}
