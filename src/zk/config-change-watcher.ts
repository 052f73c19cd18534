/**
 * Follows /config/changes the way Kafka's `ZkNodeChangeNotificationListener` does: on start and
 * on every child change it lists the `config_change_<seq>` znodes, hands each one newer than the
 * last it handled to the callback, in sequence order and once each, and deletes notifications
 * older than the expiry (15 minutes, Kafka's default) so the folder does not grow without end.
 * Passes never overlap: a change that arrives during one schedules one more.
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

const log = new Logger('zk-config-changes');

export interface ConfigChangeSubscription {
  close(): void;
}

export class ConfigChangeWatcher implements ConfigChangeSubscription {
  private lastHandled = -1;
  private running = false;
  private again = false;
  private closed = false;

  constructor(
    private readonly session: ZkSession,
    private readonly onChange: (entityPath: string) => void,
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
        else log.error('processing config change notifications failed', { error: String(err) });
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
    const names = await s.retrying(() => s.getChildren(CONFIG_CHANGES_PATH, () => this.schedule()));
    if (names === null) {
      // Not created yet: watch for it, and list again if it appeared meanwhile.
      if ((await s.retrying(() => s.exists(CONFIG_CHANGES_PATH, () => this.schedule()))) !== null) this.again = true;
      return;
    }
    const notifications = names
      .filter((name) => name.startsWith(CONFIG_CHANGE_PREFIX))
      .map((name) => ({ path: `${CONFIG_CHANGES_PATH}/${name}`, sequence: Number(name.slice(CONFIG_CHANGE_PREFIX.length)) }))
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
        await s.retrying(() => s.delete(n.path, ANY_VERSION)).catch((err: unknown) => {
          if (!(err instanceof ZkNoNodeError)) throw err;
        });
      }
    }
  }

  private deliver(path: string, data: Buffer | null): void {
    try {
      this.onChange(decodeConfigChange(path, data));
    } catch (err) {
      log.error('config change notification not handled', { path, error: String(err) });
    }
  }
}
