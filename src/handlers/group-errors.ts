/**
 * The group APIs answer a coordinator that cannot serve (its log append failed, it is reloading)
 * with the Kafka code carried by the error, in whatever field the API has for it.
 */
import { KafkaError } from '../common/kafka-error.js';

export function coordinatorErrorCode(err: unknown): number {
  if (err instanceof KafkaError) return err.code;
  throw err;
}

/** Kafka shows a member's host as `/<address>`; the connection knows it as `<address>:<port>`. */
export function clientHostOf(clientAddress: string): string {
  const colon = clientAddress.lastIndexOf(':');
  return `/${colon > 0 ? clientAddress.slice(0, colon) : clientAddress}`;
}
