/**
 * Minimal structured logger: one line per event, `level [component] message {context}` to
 * stderr, so broker output stays greppable and tests can silence it with SLUICE_LOG_LEVEL=error.
 * A broker's loggers name its node id in the tag (`[network node=1]`), so the lines of brokers
 * sharing one process (test suites) can be told apart.
 */
import { LEVEL_RANK, configuredLevel, type LogLevel, type LogLevels } from './log-levels.js';

export type { LogLevel } from './log-levels.js';

export class Logger {
  private readonly threshold = LEVEL_RANK[configuredLevel()];
  private readonly tag: string;

  /** With `levels`, the broker's BROKER_LOGGER levels decide (changeable live); else `SLUICE_LOG_LEVEL`. */
  constructor(
    private readonly component: string,
    owner?: { readonly nodeId: number },
    private readonly levels?: LogLevels,
  ) {
    this.tag = owner === undefined ? component : `${component} node=${owner.nodeId}`;
    levels?.register(component);
  }

  private emit(level: LogLevel, message: string, context?: Record<string, unknown>): void {
    if (LEVEL_RANK[level] < (this.levels?.threshold(this.component) ?? this.threshold)) return;
    const ctx = context ? ` ${JSON.stringify(context, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}` : '';
    process.stderr.write(`${new Date().toISOString()} ${level.toUpperCase()} [${this.tag}] ${message}${ctx}\n`);
  }

  debug(message: string, context?: Record<string, unknown>): void {
    this.emit('debug', message, context);
  }
  info(message: string, context?: Record<string, unknown>): void {
    this.emit('info', message, context);
  }
  warn(message: string, context?: Record<string, unknown>): void {
    this.emit('warn', message, context);
  }
  error(message: string, context?: Record<string, unknown>): void {
    this.emit('error', message, context);
  }
}
