/**
 * The sweep's progress on stderr: `[#####-----] 5/24 cells  batch.size=64 KiB linger.ms=5  ETA 1m12s`
 * (counting `runs` instead when every cell runs several times).
 * On a terminal the line is redrawn in place a few times a second (so the current cell's time
 * moves too); into a file or pipe it is one plain line per cell (or run), which logs read better.
 */
import { performance } from 'node:perf_hooks';
import { formatDuration } from './units.js';

export interface ProgressState {
  readonly done: number;
  readonly total: number;
  /** What `done` and `total` count. */
  readonly unit: ProgressUnit;
  /** The cell running, e.g. "batch.size=64 KiB linger.ms=5"; null once finished. */
  readonly current: string | null;
  readonly etaSeconds: number;
}

export type ProgressUnit = 'cells' | 'runs';

const BAR_WIDTH = 24;

export function progressLine(state: ProgressState): string {
  const filled = state.total === 0 ? BAR_WIDTH : Math.round((state.done / state.total) * BAR_WIDTH);
  const bar = `[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}]`;
  const current = state.current === null ? 'done' : state.current;
  return `${bar} ${state.done}/${state.total} ${state.unit}  ${current}  ETA ${formatDuration(state.etaSeconds)}`;
}

export interface ProgressOutput {
  readonly isTTY?: boolean;
  write(text: string): boolean;
}

export class SweepProgress {
  private done = 0;
  private current: string | null = null;
  private cellStartedAt = 0;
  /** When the first cell started: set-up and warm-up before it are not cell time. */
  private startedAt: number | null = null;
  private timer: NodeJS.Timeout | null = null;

  /** `estimatedCellSeconds` until the first cell has shown how long cells really take (flush included). */
  constructor(
    private readonly out: ProgressOutput,
    private readonly total: number,
    private readonly estimatedCellSeconds: number,
    private readonly unit: ProgressUnit,
  ) {}

  cellStarted(label: string): void {
    this.current = label;
    this.cellStartedAt = performance.now();
    this.startedAt ??= this.cellStartedAt;
    if (this.out.isTTY === true) {
      this.timer ??= setInterval(() => this.draw(), 250).unref();
      this.draw();
    } else {
      this.out.write(`${progressLine(this.state())}\n`);
    }
  }

  cellFinished(): void {
    this.done++;
    this.current = null;
  }

  finish(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    this.current = null;
    if (this.out.isTTY === true) this.out.write(`\r${progressLine(this.state())}\x1b[K\n`);
  }

  private draw(): void {
    this.out.write(`\r${progressLine(this.state())}\x1b[K`);
  }

  private state(): ProgressState {
    const now = performance.now();
    const perCell =
      this.done > 0 && this.startedAt !== null ? (this.cellStartedAt - this.startedAt) / 1000 / this.done : this.estimatedCellSeconds;
    const inCell = this.current === null ? 0 : Math.min(perCell, (now - this.cellStartedAt) / 1000);
    const left = this.total - this.done;
    return { done: this.done, total: this.total, unit: this.unit, current: this.current, etaSeconds: left * perCell - inCell };
  }
}
