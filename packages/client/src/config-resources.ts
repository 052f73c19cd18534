/** Kafka's numbers for config resources, config sources and IncrementalAlterConfigs operations. */

/** `ConfigResource.Type`; the CLI's `--entity-type` names map onto these. */
export const ConfigResourceType = {
  Topic: 2,
  Broker: 4,
  BrokerLogger: 8,
  Group: 32,
} as const;
export type ConfigResourceType = (typeof ConfigResourceType)[keyof typeof ConfigResourceType];

export interface ConfigResource {
  readonly type: ConfigResourceType;
  /** A topic name, a broker id, "" for the cluster-wide broker default, or a group id. */
  readonly name: string;
}

/** `DescribeConfigsResponse.ConfigSource`, indexed by its wire value. */
const CONFIG_SOURCE_NAMES = [
  'UNKNOWN',
  'DYNAMIC_TOPIC_CONFIG',
  'DYNAMIC_BROKER_CONFIG',
  'DYNAMIC_DEFAULT_BROKER_CONFIG',
  'STATIC_BROKER_CONFIG',
  'DEFAULT_CONFIG',
  'DYNAMIC_BROKER_LOGGER_CONFIG',
  'CLIENT_METRICS_CONFIG',
  'GROUP_CONFIG',
] as const;

export const ConfigSource = {
  DynamicTopic: 1,
  DynamicBroker: 2,
  DynamicDefaultBroker: 3,
  DynamicBrokerLogger: 6,
  Group: 8,
} as const;

export function configSourceName(source: number): string {
  return CONFIG_SOURCE_NAMES[source] ?? `UNKNOWN_CONFIG_SOURCE_${source}`;
}

/** `AlterConfigOp.OpType`. */
export const AlterConfigOp = {
  Set: 0,
  Delete: 1,
  Append: 2,
  Subtract: 3,
} as const;
export type AlterConfigOp = (typeof AlterConfigOp)[keyof typeof AlterConfigOp];
