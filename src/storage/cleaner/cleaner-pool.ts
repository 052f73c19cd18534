/**
 * The threads that run cleaning jobs (Kafka's `log.cleaner.threads`): a piscina pool started on
 * the first job, whose threads exit after `idleTimeoutMs` without work, so a broker with no
 * compacted topic runs none. One pool per partition owner (the thread that owns a `LogManager`);
 * jobs settle back on that thread.
 */
import { Piscina } from 'piscina';
import type { CleanResult, CleanTask } from './clean-task.js';

/** Runs one job somewhere off the owner's hot path; tests may run it inline. */
export type CleanRunner = (task: CleanTask) => Promise<CleanResult>;

export interface CleanerPoolOptions {
  readonly threads: number;
  readonly idleTimeoutMs?: number;
}

const WORKER = new URL('./clean-worker.js', import.meta.url).href;

export class CleanerPool {
  readonly #options: CleanerPoolOptions;
  #pool: Piscina<CleanTask, CleanResult> | null = null;

  constructor(options: CleanerPoolOptions) {
    this.#options = options;
  }

  readonly run: CleanRunner = (task) => {
    this.#pool ??= new Piscina<CleanTask, CleanResult>({
      filename: WORKER,
      minThreads: 0,
      maxThreads: this.#options.threads,
      idleTimeout: this.#options.idleTimeoutMs ?? 30_000,
    });
    return this.#pool.run(task);
  };

  /** Stops the threads; a job still running is cut short and its promise rejects. */
  async close(): Promise<void> {
    const pool = this.#pool;
    this.#pool = null;
    if (pool !== null) await pool.destroy();
  }
}
