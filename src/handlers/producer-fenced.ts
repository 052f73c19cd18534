/**
 * KIP-588 gave a fenced transactional producer its own error, PRODUCER_FENCED, from these
 * request versions on; a client sending an older version does not know the code, and Kafka
 * answers it INVALID_PRODUCER_EPOCH instead.
 */
import { ErrorCode } from '@sluice/protocol/errors.js';

export const FIRST_PRODUCER_FENCED_VERSION = {
  initProducerId: 4,
  addPartitionsToTxn: 2,
  addOffsetsToTxn: 2,
  endTxn: 2,
} as const;

/** The error as a client of `version` understands it, for an API whose first version with PRODUCER_FENCED is `firstVersion`. */
export function fencingErrorFor(errorCode: number, version: number, firstVersion: number): number {
  return errorCode === ErrorCode.PRODUCER_FENCED && version < firstVersion ? ErrorCode.INVALID_PRODUCER_EPOCH : errorCode;
}
