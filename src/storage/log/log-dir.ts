/**
 * One entry of `log.dirs` and whether it is still usable. The first I/O error on any file
 * under it takes it offline (Kafka's `LogDirFailureChannel`): from then on every append and read
 * on its partitions fails with KAFKA_STORAGE_ERROR, and nothing more is written there — not even
 * checkpoints or the clean-shutdown marker — so the next start-up recovers it from what was
 * acknowledged. Other log dirs are unaffected. Owned by the thread that owns its partitions;
 * `onOffline` lets the owner tell the rest of the broker.
 */
import { StorageError } from '../storage-error.js';

export class LogDir {
  #failure: Error | null = null;
  readonly #listeners: Array<(dir: LogDir, cause: Error) => void> = [];

  constructor(readonly path: string) {}

  get online(): boolean {
    return this.#failure === null;
  }

  get failure(): Error | null {
    return this.#failure;
  }

  markOffline(cause: Error): void {
    if (this.#failure !== null) return;
    this.#failure = cause;
    for (const listener of this.#listeners) listener(this, cause);
  }

  onOffline(listener: (dir: LogDir, cause: Error) => void): void {
    this.#listeners.push(listener);
  }

  /** Throws KAFKA_STORAGE_ERROR if the dir is offline. */
  checkOnline(): void {
    if (this.#failure !== null) {
      throw new StorageError(`log dir ${this.path} is offline: ${this.#failure.message}`, { cause: this.#failure });
    }
  }
}
