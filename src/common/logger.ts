/**
 * Minimal structured logger: one line per event, `level [component] message {context}` to
 * stderr, so broker output stays greppable and tests can silence it with SLUICE_LOG_LEVEL=error.
 * A broker's loggers name its node id in the tag (`[network node=1]`), so the lines of brokers
 * sharing one process (test suites) can be told apart.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

function configuredLevel(): LogLevel {
  const env = process.env['SLUICE_LOG_LEVEL'];
  return env === 'debug' || env === 'info' || env === 'warn' || env === 'error' ? env : 'info';
}

export class Logger {
  private readonly threshold = RANK[configuredLevel()];
  private readonly tag: string;

  constructor(component: string, owner?: { readonly nodeId: number }) {
    this.tag = owner === undefined ? component : `${component} node=${owner.nodeId}`;
  }

  private emit(level: LogLevel, message: string, context?: Record<string, unknown>): void {
    if (RANK[level] < this.threshold) return;
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
