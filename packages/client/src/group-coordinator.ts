/**
 * Finding a group's coordinator: FindCoordinator to any broker (one key in v0–3, a batch of keys
 * in v4+), then a connection to the broker it names. Right after a cluster starts, Kafka answers
 * COORDINATOR_NOT_AVAILABLE while it creates `__consumer_offsets`; callers retry that, and the
 * NOT_COORDINATOR / COORDINATOR_LOAD_IN_PROGRESS a moved or loading coordinator answers, through
 * `withRetries`, looking the coordinator up again each time.
 */
import { ErrorCode } from '@sluice/protocol/errors.js';
import { FindCoordinatorRequest, FindCoordinatorResponse } from '@sluice/protocol/messages/index.js';
import { brokerError, throwIfError } from './client-errors.js';
import type { KafkaCluster } from './cluster.js';
import type { BrokerNode } from './cluster-metadata.js';
import type { KafkaConnection } from './connection.js';

const GROUP_KEY_TYPE = 0;
const BATCHED_VERSION = 4;

export interface Coordinator {
  readonly node: BrokerNode;
  readonly connection: KafkaConnection;
}

export async function findGroupCoordinator(cluster: KafkaCluster, groupId: string): Promise<Coordinator> {
  const any = await cluster.anyConnection();
  let batched = false;
  const res = await any.request(FindCoordinatorRequest, FindCoordinatorResponse, (version) => {
    batched = version >= BATCHED_VERSION;
    return batched ? { keyType: GROUP_KEY_TYPE, coordinatorKeys: [groupId] } : { keyType: GROUP_KEY_TYPE, key: groupId };
  });
  const answer = batched ? res.coordinators.find((c) => c.key === groupId) : res;
  if (answer === undefined)
    throw brokerError(ErrorCode.UNKNOWN_SERVER_ERROR, 'no coordinator entry for the group', `FindCoordinator '${groupId}'`);
  throwIfError(answer.errorCode, answer.errorMessage, `find the coordinator of group '${groupId}'`);
  // The coordinator is a broker of the cluster; metadata tells the client how to reach it by id.
  await cluster.metadata([]);
  return {
    node: { nodeId: answer.nodeId, host: answer.host, port: answer.port, rack: null },
    connection: await cluster.nodeConnection(answer.nodeId),
  };
}
