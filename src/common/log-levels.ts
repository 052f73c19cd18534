/**
 * The levels of a broker's loggers as Kafka's BROKER_LOGGER config resource shows and changes
 * them (Log4jController): a `root` level every logger inherits, and per-logger levels set live by
 * IncrementalAlterConfigs. Levels use Kafka's (log4j) names; Sluice's four map onto them (TRACE
 * logs as debug; FATAL silences everything, as Sluice logs nothing at fatal). Not persisted: a restart starts from
 * `SLUICE_LOG_LEVEL`, as a Kafka broker starts from its log4j configuration.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** The levels Kafka 4.4 accepts, in the order its error message lists them. */
export const KAFKA_LOG_LEVELS = ['DEBUG', 'ERROR', 'FATAL', 'INFO', 'TRACE', 'WARN'] as const;
export type KafkaLogLevel = (typeof KAFKA_LOG_LEVELS)[number];
export const ROOT_LOGGER = 'root';

export const LEVEL_RANK: Readonly<Record<LogLevel, number>> = { debug: 10, info: 20, warn: 30, error: 40 };
const KAFKA_RANK: Readonly<Record<KafkaLogLevel, number>> = { TRACE: 0, DEBUG: 10, INFO: 20, WARN: 30, ERROR: 40, FATAL: 50 };

export function isKafkaLogLevel(text: string): text is KafkaLogLevel {
  return (KAFKA_LOG_LEVELS as readonly string[]).includes(text);
}

export function configuredLevel(): LogLevel {
  const env = process.env['SLUICE_LOG_LEVEL'];
  return env === 'debug' || env === 'info' || env === 'warn' || env === 'error' ? env : 'info';
}

export class LogLevels {
  private root: KafkaLogLevel;
  private readonly explicit = new Map<string, KafkaLogLevel>();
  private readonly known = new Set<string>();

  constructor(initial: LogLevel = configuredLevel()) {
    this.root = initial.toUpperCase() as KafkaLogLevel;
  }

  /** A logger the broker created (its component name), so that it can be listed and set. */
  register(name: string): void {
    this.known.add(name);
  }

  has(name: string): boolean {
    return name === ROOT_LOGGER || this.known.has(name);
  }

  /** The level in effect for `name`: its own, else root's. */
  level(name: string): KafkaLogLevel {
    return name === ROOT_LOGGER ? this.root : (this.explicit.get(name) ?? this.root);
  }

  /** Loggers with their own level (root always has one). */
  explicitLevels(): ReadonlyMap<string, KafkaLogLevel> {
    return new Map([[ROOT_LOGGER, this.root], ...this.explicit]);
  }

  /** Every logger with its effective level, root first. */
  loggers(): [string, KafkaLogLevel][] {
    return [[ROOT_LOGGER, this.root], ...[...this.known].sort().map((n): [string, KafkaLogLevel] => [n, this.level(n)])];
  }

  set(name: string, level: KafkaLogLevel): void {
    if (name === ROOT_LOGGER) this.root = level;
    else this.explicit.set(name, level);
  }

  /** Back to inheriting root's level; root itself always keeps one. */
  unset(name: string): void {
    this.explicit.delete(name);
  }

  /** The lowest rank `name` logs at. */
  threshold(name: string): number {
    return KAFKA_RANK[this.level(name)];
  }
}
