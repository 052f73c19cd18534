/**
 * Failures of Kafka's rules on top of ZooKeeper's. Those a request handler answers with carry the
 * Kafka error code (`KafkaError`); the numbers are `protocol/errors`' (not imported: `zk` sits
 * beside `protocol`, not above it).
 */
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';

const TOPIC_ALREADY_EXISTS = 36;
const NOT_CONTROLLER = 41;

/** Shows a session id as ZooKeeper's logs do: unsigned hex with 0x. */
export function sessionIdHex(id: bigint): string {
  return `0x${BigInt.asUintN(64, id).toString(16)}`;
}

/**
 * A controller write whose guard failed: `/controller_epoch` is no longer at the version this
 * controller wrote when it was elected, so another controller has been elected since (Kafka's
 * `ControllerMovedException`). The write was not applied; the controller must stop acting.
 */
export class ControllerMovedError extends KafkaError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(NOT_CONTROLLER, message, options);
    this.name = 'ControllerMovedError';
  }
}

export class TopicExistsError extends KafkaError {
  constructor(message: string) {
    super(TOPIC_ALREADY_EXISTS, message);
    this.name = 'TopicExistsError';
  }
}

/** Another live session holds `/brokers/ids/<id>`: two brokers were given the same `broker.id`. */
export class BrokerIdInUseError extends Error {
  readonly brokerId: number;
  readonly ownerSessionId: bigint;

  constructor(brokerId: number, path: string, ownerSessionId: bigint, ourSessionId: bigint) {
    super(
      `broker id ${brokerId} is already registered: creating the ephemeral znode ${path} failed because it exists, ` +
        `owned by ZooKeeper session ${sessionIdHex(ownerSessionId)}, not by this broker's session ${sessionIdHex(ourSessionId)}. ` +
        `Another broker runs with broker.id=${brokerId}, or a previous run's session has not expired yet.`,
    );
    this.name = 'BrokerIdInUseError';
    this.brokerId = brokerId;
    this.ownerSessionId = ownerSessionId;
  }
}

/** A znode whose data is not in the format Kafka writes there. */
export class KafkaZkDataError extends Error {
  readonly path: string;

  constructor(path: string, problem: string, data: Buffer | null) {
    super(`unexpected data at ${path}: ${problem}: ${data === null ? 'no data' : JSON.stringify(data.toString('utf8').slice(0, 500))}`);
    this.name = 'KafkaZkDataError';
    this.path = path;
  }
}
