/**
 * How `sluice cluster stop-broker|start-broker|add-broker|down` reach the supervisor: a Unix
 * socket in the cluster's directory, one request per connection, one JSON line each way.
 *
 * The supervisor is the brokers' parent, and must stay so: only it gets their exit, streams
 * their output and stops them all on `down`. So the commands ask it to act rather than act
 * themselves, and a request-reply channel lets them wait for the outcome (a broker ready again,
 * one stopped) and get the supervisor's error back, which a signal could not carry (nor say
 * which broker). The socket file lives with the data, under the directory's permissions.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { rmSync } from 'node:fs';
import { ClusterCommandError } from './cluster-args.js';

export type ControlRequest =
  | { readonly op: 'stop-broker'; readonly id: number; readonly kill: boolean }
  | { readonly op: 'start-broker'; readonly id: number }
  | { readonly op: 'add-broker' }
  | { readonly op: 'down' };

type ControlReply = { readonly ok: true; readonly message: string } | { readonly ok: false; readonly error: string };

export interface Handled {
  readonly message: string;
  /** Runs once the reply is written (`down` exits the supervisor then). */
  readonly afterReply?: () => void;
}

/**
 * A reply waits for the outcome: a broker's restart can wait out its previous ZooKeeper session
 * before it is ready, and a controlled shutdown moves every leadership first.
 */
const REPLY_TIMEOUT_MS = 120_000;

/** Calls `onLine` with the first line the peer sends; the protocol has no second. */
function readLine(socket: Socket, onLine: (line: string) => void): void {
  let buffered = '';
  socket.setEncoding('utf8');
  const onData = (chunk: string): void => {
    buffered += chunk;
    const nl = buffered.indexOf('\n');
    if (nl < 0) return;
    socket.off('data', onData);
    onLine(buffered.slice(0, nl));
  };
  socket.on('data', onData);
}

/** Takes requests on `path` (a stale socket file of a supervisor that died is replaced). */
export function serveControl(path: string, handle: (request: ControlRequest) => Promise<Handled>): Promise<Server> {
  rmSync(path, { force: true });
  const server = createServer((socket) => {
    socket.on('error', (err) => process.stderr.write(`sluice cluster: a control connection failed: ${err.message}\n`));
    readLine(socket, (line) => {
      const answer = (reply: ControlReply, after?: () => void): void => void socket.end(`${JSON.stringify(reply)}\n`, after);
      let request: ControlRequest;
      try {
        request = JSON.parse(line) as ControlRequest;
      } catch (err) {
        answer({ ok: false, error: `not a request: ${(err as Error).message}` });
        return;
      }
      handle(request).then(
        (handled) => answer({ ok: true, message: handled.message }, handled.afterReply),
        (err: unknown) => answer({ ok: false, error: err instanceof Error ? err.message : String(err) }),
      );
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

/** Sends one request to the supervisor listening on `path`; its message, or its error as a `ClusterCommandError`. */
export function requestControl(path: string, request: ControlRequest): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(path);
    socket.setTimeout(REPLY_TIMEOUT_MS, () =>
      socket.destroy(new ClusterCommandError(`the supervisor did not answer within ${REPLY_TIMEOUT_MS} ms`)),
    );
    let settled = false;
    socket.on('error', (err: NodeJS.ErrnoException) => {
      settled = true;
      reject(
        err.code === 'ENOENT' || err.code === 'ECONNREFUSED'
          ? new ClusterCommandError(`no cluster supervisor listens on ${path} (is sluice cluster up running with this --dir?)`)
          : err,
      );
    });
    socket.on('close', () => {
      if (!settled) reject(new ClusterCommandError('the supervisor closed the connection without answering'));
    });
    readLine(socket, (line) => {
      settled = true;
      const reply = JSON.parse(line) as ControlReply;
      if (reply.ok) resolve(reply.message);
      else reject(new ClusterCommandError(reply.error));
    });
    socket.write(`${JSON.stringify(request)}\n`);
  });
}
