/**
 * The BROKER_LOGGER config resource (type 8), as Kafka's ConfigAdminManager serves it: this
 * broker's loggers and their levels (DescribeConfigs), and levels set or removed live
 * (IncrementalAlterConfigs SET and DELETE). The resource is named by this broker's id.
 */
import { ErrorCode } from '@sluice/protocol/errors.js';
import { ConfigSource } from '../metadata/config/config-definitions.js';
import type { AdminResult } from '../metadata/admin/topic-admin.js';
import { KAFKA_LOG_LEVELS, ROOT_LOGGER, isKafkaLogLevel, type LogLevels } from '../common/log-levels.js';

export interface LoggerEntry {
  readonly name: string;
  readonly value: string;
  readonly source: number;
}

/** Why `resourceName` does not name this broker's loggers, or null when it does. */
export function loggerResourceProblem(nodeId: number, resourceName: string): AdminResult | null {
  if (resourceName === '') return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'Broker id must not be empty' };
  if (resourceName !== String(nodeId)) {
    return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `Unexpected broker id, expected ${nodeId} but received ${resourceName}` };
  }
  return null;
}

export function loggerEntries(levels: LogLevels): LoggerEntry[] {
  return levels.loggers().map(([name, value]) => ({ name, value, source: ConfigSource.DYNAMIC_BROKER_LOGGER_CONFIG }));
}

/**
 * Makes `next` the set of loggers with their own level (root always keeps one), after Kafka's
 * checks: known loggers, log4j level names, root not removed. Nothing changes when one fails.
 */
export function replaceLoggerLevels(levels: LogLevels, next: ReadonlyMap<string, string>, validateOnly: boolean): AdminResult {
  if (!next.has(ROOT_LOGGER))
    return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `Removing the log level of the ${ROOT_LOGGER} logger is not allowed` };
  for (const [name, level] of next) {
    if (!levels.has(name)) return { errorCode: ErrorCode.INVALID_CONFIG, errorMessage: `Logger ${name} does not exist!` };
    if (!isKafkaLogLevel(level)) {
      return {
        errorCode: ErrorCode.INVALID_CONFIG,
        errorMessage: `Cannot set the log level of ${name} to ${level} as it is not a supported log level. Valid log levels are ${KAFKA_LOG_LEVELS.join(', ')}`,
      };
    }
  }
  if (validateOnly) return { errorCode: ErrorCode.NONE, errorMessage: null };
  for (const name of levels.explicitLevels().keys()) if (!next.has(name)) levels.unset(name);
  for (const [name, level] of next) if (isKafkaLogLevel(level)) levels.set(name, level);
  return { errorCode: ErrorCode.NONE, errorMessage: null };
}
