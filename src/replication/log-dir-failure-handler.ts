/**
 * A cluster member's answer to a failed log dir (Kafka's `ReplicaManager.handleLogDirFailure`);
 * a single broker runs it too, with its `LocalController` as the controller to tell.
 * A worker takes a dir offline at its first I/O error there, on its own; workers answer the main
 * thread but never call it, so the member asks them (`describeLogDirs`) every `checkIntervalMs`.
 * A dir newly offline is then given up by every worker, its partitions stop being followed and
 * are offline in the replica manager, and a log dir event in ZooKeeper tells the controller,
 * which asks this broker for all its replicas (those answered KAFKA_STORAGE_ERROR lose their
 * leadership and ISR membership here). The other dirs keep serving. With no dir left the broker
 * cannot serve anything: `onAllFailed` (Kafka halts the broker then, without notifying).
 */
import type { Logger } from '../common/logger.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import type { LogDirDescription } from '../metadata/admin/partition-admin.js';
import type { ReplicaLogs } from './replica-logs.js';

/** How often the member (or a single broker) asks the workers whether a log dir failed. */
export const LOG_DIR_CHECK_INTERVAL_MS = 500;

export interface LogDirFailureHandlerDeps {
  readonly logs: Pick<ReplicaLogs, 'describeLogDirs' | 'takeLogDirOffline'>;
  /** Stops following the partitions and answers KAFKA_STORAGE_ERROR for them (`ReplicaManager.markOffline`). */
  readonly markOffline: (partitions: LogDirDescription['partitions']) => Promise<void>;
  /** Writes the log dir event notification for the controller. */
  readonly notifyController: () => Promise<void>;
  readonly onAllFailed: (dirs: readonly string[]) => void;
  readonly checkIntervalMs: number;
  readonly log: Logger;
}

export class LogDirFailureHandler {
  /** Dirs whose failure was fully handled (a step that failed is retried at the next check). */
  private readonly handled = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private allFailed = false;

  constructor(private readonly deps: LogDirFailureHandlerDeps) {}

  start(): void {
    this.schedule();
  }

  close(): void {
    this.closed = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(): void {
    if (this.closed) return;
    this.timer = setTimeout(() => {
      void this.check()
        .catch((err: unknown) =>
          this.deps.log.error('handling a failed log dir failed; retrying', { error: (err as Error).stack ?? String(err) }),
        )
        .finally(() => this.schedule());
    }, this.deps.checkIntervalMs);
    this.timer.unref();
  }

  private async check(): Promise<void> {
    const dirs = await this.deps.logs.describeLogDirs();
    const failed = dirs.filter((d) => d.errorCode !== ErrorCode.NONE);
    if (failed.length === 0 || this.allFailed) return;
    if (failed.length === dirs.length) {
      this.allFailed = true;
      const paths = dirs.map((d) => d.path);
      this.deps.log.error(`Shutdown broker because all log dirs in ${paths.join(', ')} have failed`);
      this.deps.onAllFailed(paths);
      return;
    }
    for (const dir of failed) {
      if (this.handled.has(dir.path)) continue;
      this.deps.log.error('log dir failed: its partitions go offline and the controller moves them', {
        dir: dir.path,
        partitions: dir.partitions.length,
      });
      await this.deps.logs.takeLogDirOffline(dir.path, 'an I/O error in one of its partitions');
      // A future log there only ends its move (the worker drops it); the partition is served from its current dir.
      await this.deps.markOffline(dir.partitions.filter((p) => !p.isFuture));
      await this.deps.notifyController();
      this.handled.add(dir.path);
    }
  }
}
