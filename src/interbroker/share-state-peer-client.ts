/**
 * A cluster member's side of the share-state RPCs (83–87) to the share coordinator on another broker,
 * as Kafka's persister sends them: one share-partition per request, over the member's connection
 * to that broker. A failed exchange drops the connection and answers NETWORK_EXCEPTION (or the
 * error the exchange carried) for the persister to retry.
 */
import { kafkaErrorCode } from '@sluice/protocol/common/kafka-error.js';
import type { Logger } from '../common/logger.js';
import type { ShareOpError, ShareReadAnswer, ShareSummaryAnswer, ShareWriteRequest } from '../coordinator/share/share-coordinator.js';
import type { ShareStateBackend } from '../coordinator/share/share-coordinator-service.js';
import type { ShareStatePeers } from '../coordinator/share/share-state-routing.js';
import type { SharePartitionKey } from '../coordinator/share/share-state-persister.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import {
  DeleteShareGroupStateRequest,
  DeleteShareGroupStateResponse,
  InitializeShareGroupStateRequest,
  InitializeShareGroupStateResponse,
  ReadShareGroupStateRequest,
  ReadShareGroupStateResponse,
  ReadShareGroupStateSummaryRequest,
  ReadShareGroupStateSummaryResponse,
  WriteShareGroupStateRequest,
  WriteShareGroupStateResponse,
} from '@sluice/protocol/messages/index.js';
import type { KafkaConnection } from '@sluice/client/connection.js';
import type { BrokerConnections } from './broker-connections.js';

/** The one partition answer of a one-partition response; a response without it is UNKNOWN_SERVER_ERROR. */
function only<P extends ShareOpError>(results: ReadonlyArray<{ partitions: readonly P[] }>): P | ShareOpError {
  return (
    results[0]?.partitions[0] ?? { errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: 'the share coordinator answered no partition' }
  );
}

export class ShareStatePeerClient implements ShareStatePeers {
  constructor(
    private readonly brokers: BrokerConnections,
    private readonly log: Logger,
  ) {}

  at(brokerId: number): ShareStateBackend {
    const exchange = <R extends ShareOpError>(
      api: string,
      failed: (e: ShareOpError) => R,
      send: (c: KafkaConnection) => Promise<R | ShareOpError>,
    ) => this.exchange(brokerId, api, failed, send);
    const noRead = (e: ShareOpError): ShareReadAnswer => ({ ...e, stateEpoch: 0, startOffset: 0n, stateBatches: [] });
    const noSummary = (e: ShareOpError): ShareSummaryAnswer => ({
      ...e,
      stateEpoch: 0,
      leaderEpoch: 0,
      startOffset: 0n,
      deliveryCompleteCount: -1,
    });
    const topics = <P>(key: SharePartitionKey, partition: P) => ({
      groupId: key.groupId,
      topics: [{ topicId: key.topicId, partitions: [partition] }],
    });
    return {
      initialize: (key, stateEpoch, startOffset) =>
        exchange(
          'InitializeShareGroupState',
          (e) => e,
          async (c) =>
            only(
              (
                await c.request(InitializeShareGroupStateRequest, InitializeShareGroupStateResponse, () =>
                  topics(key, { partition: key.partition, stateEpoch, startOffset }),
                )
              ).results,
            ),
        ),
      read: (key, leaderEpoch) =>
        exchange('ReadShareGroupState', noRead, async (c) =>
          only(
            (
              await c.request(ReadShareGroupStateRequest, ReadShareGroupStateResponse, () =>
                topics(key, { partition: key.partition, leaderEpoch }),
              )
            ).results,
          ),
        ),
      write: (key, request: ShareWriteRequest) =>
        exchange(
          'WriteShareGroupState',
          (e) => e,
          async (c) =>
            only(
              (
                await c.request(WriteShareGroupStateRequest, WriteShareGroupStateResponse, () =>
                  topics(key, { partition: key.partition, ...request, stateBatches: [...request.stateBatches] }),
                )
              ).results,
            ),
        ),
      delete: (key) =>
        exchange(
          'DeleteShareGroupState',
          (e) => e,
          async (c) =>
            only(
              (
                await c.request(DeleteShareGroupStateRequest, DeleteShareGroupStateResponse, () =>
                  topics(key, { partition: key.partition }),
                )
              ).results,
            ),
        ),
      readSummary: (key, leaderEpoch) =>
        exchange('ReadShareGroupStateSummary', noSummary, async (c) =>
          only(
            (
              await c.request(ReadShareGroupStateSummaryRequest, ReadShareGroupStateSummaryResponse, () =>
                topics(key, { partition: key.partition, leaderEpoch }),
              )
            ).results,
          ),
        ),
    };
  }

  private async exchange<R extends ShareOpError>(
    brokerId: number,
    api: string,
    failed: (e: ShareOpError) => R,
    send: (connection: KafkaConnection) => Promise<R | ShareOpError>,
  ): Promise<R> {
    try {
      const connection = await this.brokers.connect(brokerId);
      // A broker the metadata does not know (yet): the coordinator's leadership is about to be learnt.
      if (connection === null)
        return failed({ errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, errorMessage: `broker ${brokerId} is not known yet` });
      const answer = await send(connection);
      return 'partition' in answer ? (answer as R) : failed(answer);
    } catch (err) {
      this.log.warn(`${api} to a peer failed; the connection is dropped`, { brokerId, error: (err as Error).message });
      this.brokers.reset(brokerId);
      const errorCode = kafkaErrorCode(err) === ErrorCode.UNKNOWN_SERVER_ERROR ? ErrorCode.NETWORK_EXCEPTION : kafkaErrorCode(err);
      return failed({ errorCode, errorMessage: (err as Error).message });
    }
  }
}
