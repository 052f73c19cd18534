/** Errors of the partition worker host. */
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';

/** Why a worker no longer takes requests. */
export type WorkerUnavailableReason = 'exited' | 'crashed' | 'closed' | 'start-failed';

/**
 * A request to a worker that died, failed to start or was shut down. KAFKA_STORAGE_ERROR, as
 * Kafka answers for a partition whose log directory went offline: the partitions that worker
 * owns cannot be read or written, and clients retry (the code is retriable).
 */
export class PartitionWorkerUnavailableError extends KafkaError {
  readonly workerIndex: number;
  readonly reason: WorkerUnavailableReason;

  constructor(workerIndex: number, reason: WorkerUnavailableReason, detail: string, options?: { cause?: unknown }) {
    super(ErrorCode.KAFKA_STORAGE_ERROR, `partition worker ${workerIndex} is unavailable (${reason}): ${detail}`, options);
    this.name = 'PartitionWorkerUnavailableError';
    this.workerIndex = workerIndex;
    this.reason = reason;
  }
}

/** The op module named to the host does not export a `registerOps` function. */
export class OpModuleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OpModuleError';
  }
}
