/**
 * UpdateMetadata (key 6, Kafka's ZooKeeper-era inter-broker API): the controller's view of the
 * live brokers and of partitions' leaders and ISRs, for this broker's metadata cache (what it
 * answers clients in Metadata and what its fetchers follow). Served only on cluster members.
 */
import { ErrorCode } from '@sluice/protocol/errors.js';
import { UpdateMetadataRequest, UpdateMetadataResponse, type UpdateMetadataResponseDataInput } from '@sluice/protocol/messages/index.js';
import type { PartitionUpdate } from '../metadata/cluster-metadata-cache.js';
import type { BrokerRegistration, ListenerEndpoint } from '../metadata/metadata-image.js';
import { SECURITY_PROTOCOL_IDS, type SecurityProtocol } from '../common/session.js';
import { ZERO_UUID } from '@sluice/protocol/common/uuid.js';
import { AclOperation, authorizedOnCluster } from './authorization.js';
import { clusterOf, membershipOf } from './cluster-context.js';
import { defineHandler } from './handler.js';

const PROTOCOL_BY_ID = new Map(Object.entries(SECURITY_PROTOCOL_IDS).map(([name, id]) => [id, name as SecurityProtocol]));

export const updateMetadataHandler = defineHandler({
  request: UpdateMetadataRequest,
  response: UpdateMetadataResponse,
  async handle(request, ctx): Promise<UpdateMetadataResponseDataInput> {
    if (!authorizedOnCluster(ctx, AclOperation.CLUSTER_ACTION)) return { errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED };
    const member = membershipOf(clusterOf(ctx));
    // v0 names no listener: its one endpoint is PLAINTEXT's. Brokers reach each other on the inter-broker listener.
    const brokers: BrokerRegistration[] = request.liveBrokers.flatMap((b) => {
      const endpoints: ListenerEndpoint[] = b.endpoints.flatMap((e) => {
        const securityProtocol = PROTOCOL_BY_ID.get(e.securityProtocol);
        return securityProtocol === undefined
          ? []
          : [{ listenerName: e.listener || securityProtocol, securityProtocol, host: e.host, port: e.port }];
      });
      const inter = endpoints.find((e) => e.listenerName === member.interBrokerListenerName) ?? endpoints[0];
      return inter === undefined ? [] : [{ nodeId: b.id, host: inter.host, port: inter.port, rack: b.rack, endpoints }];
    });
    const states =
      ctx.header.requestApiVersion >= 5
        ? request.topicStates.flatMap((t) => t.partitionStates.map((p) => ({ topic: t.topicName, topicId: t.topicId ?? ZERO_UUID, p })))
        : request.ungroupedPartitionStates.map((p) => ({ topic: p.topicName, topicId: ZERO_UUID, p }));
    const partitions: PartitionUpdate[] = states.map(({ topic, topicId, p }) => ({
      topic,
      topicId,
      partition: {
        partition: p.partitionIndex,
        leader: p.leader,
        leaderEpoch: p.leaderEpoch,
        partitionEpoch: p.zkVersion,
        replicas: p.replicas,
        isr: p.isr,
        offlineReplicas: p.offlineReplicas,
      },
    }));
    const errorCode = await member.replicas.updateMetadata(
      { controllerId: request.controllerId, controllerEpoch: request.controllerEpoch, brokerEpoch: request.brokerEpoch },
      { controllerId: request.controllerId, controllerEpoch: request.controllerEpoch, brokers, partitions },
    );
    return { errorCode };
  },
});
