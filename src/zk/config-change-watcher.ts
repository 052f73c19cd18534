/**
 * Follows a change-notification folder the way Kafka's `ZkNodeChangeNotificationListener` does
 * (/config/changes with `config_change_<seq>`, /kafka-acl-changes and /kafka-acl-extended-changes
 * with `acl_changes_<seq>`): on start and on every child change it lists the sequential znodes,
 * hands each one newer than the last it handled, decoded, to the callback, in sequence order and
 * once each, and deletes notifications older than the expiry (15 minutes, Kafka's default) so
 * the folder does not grow without end. Passes never overlap: a change that arrives during one
 * schedules one more.
 *
 * It stops when closed or when the session ends (expiry: the new session's owner starts a new
 * watcher, which replays what is still there, as Kafka does after a new session).
 */
import { Logger } from '../common/logger.js';
import { CONFIG_CHANGE_PREFIX, CONFIG_CHANGES_PATH, decodeConfigChange } from './kafka-zk-data.js';
import { ZkClosedError, ZkNoNodeError, ZkSessionExpiredError } from './zk-errors.js';
import type { ZkSession } from './zk-session.js';
import { ANY_VERSION } from './zk-types.js';

export const CONFIG_CHANGE_EXPIRATION_MS = 15 * 60_000;

const log = new Logger('zk-change-notifications');

export interface ConfigChangeSubscription {
  close(): void;
}

/** One notification folder: where, the sequential names' prefix, and what a notification's data says. */
export interface ChangeFeed<T> {
  readonly path: string;
  readonly prefix: string;
  decode(path: string, data: Buffer | null): T;
}

/** /config/changes: each notification names a config entity (`topics/<t>`, `brokers/<id>`). */
export const CONFIG_CHANGE_FEED: ChangeFeed<string> = {
  path: CONFIG_CHANGES_PATH,
  prefix: CONFIG_CHANGE_PREFIX,
  decode: decodeConfigChange,
};

export class ChangeNotificationWatcher<T> implements ConfigChangeSubscription {
  private lastHandled = -1;
  private running = false;
  private again = false;
  private closed = false;

  constructor(
    private readonly session: ZkSession,
    private readonly feed: ChangeFeed<T>,
    private readonly onChange: (change: T) => void,
    private readonly expirationMs = CONFIG_CHANGE_EXPIRATION_MS,
  ) {}

  start(): this {
    this.schedule();
    return this;
  }

  close(): void {
    this.closed = true;
  }

  private schedule(): void {
    if (this.closed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    this.pass()
      .catch((err: unknown) => {
        if (err instanceof ZkSessionExpiredError || err instanceof ZkClosedError) this.closed = true;
        else log.error('processing change notifications failed', { path: this.feed.path, error: String(err) });
      })
      .finally(() => {
        this.running = false;
        if (this.again) {
          this.again = false;
          this.schedule();
        }
      });
  }

  private async pass(): Promise<void> {
    const s = this.session;
    const { path, prefix } = this.feed;
    const names = await s.retrying(() => s.getChildren(path, () => this.schedule()));
    if (names === null) {
      // Not created yet: watch for it, and list again if it appeared meanwhile.
      if ((await s.retrying(() => s.exists(path, () => this.schedule()))) !== null) this.again = true;
      return;
    }
    const notifications = names
      .filter((name) => name.startsWith(prefix))
      .map((name) => ({ path: `${path}/${name}`, sequence: Number(name.slice(prefix.length)) }))
      .filter((n) => Number.isInteger(n.sequence))
      .sort((a, b) => a.sequence - b.sequence);
    const now = Date.now();
    for (const n of notifications) {
      if (this.closed) return;
      const node = await s.retrying(() => s.get(n.path));
      if (n.sequence > this.lastHandled) {
        this.lastHandled = n.sequence;
        if (node !== null) this.deliver(n.path, node.data);
      }
      if (node !== null && now - node.stat.ctime > this.expirationMs) {
        await s
          .retrying(() => s.delete(n.path, ANY_VERSION))
          .catch((err: unknown) => {
            if (!(err instanceof ZkNoNodeError)) throw err;
          });
      }
    }
  }

  private deliver(path: string, data: Buffer | null): void {
    try {
      this.onChange(this.feed.decode(path, data));
    } catch (err) {
      log.error('change notification not handled', { path, error: String(err) });
    }
  }
}
