/**
 * DescribeCluster (key 60): cluster id, controller and the registered brokers, from the metadata
 * image, each at its endpoint on the request's listener. This is a broker endpoint: a request for the controller endpoint type is refused as
 * Kafka's brokers do.
 */
import { ErrorCode } from '@sluice/protocol/errors.js';
import { DescribeClusterRequest, DescribeClusterResponse, type DescribeClusterResponseDataInput } from '@sluice/protocol/messages/index.js';
import { authorizedOperations, ResourceType } from './authorization.js';
import { CLUSTER_NAME } from '../security/acl/index.js';
import { endpointOn } from '../metadata/metadata-image.js';
import { defineHandler } from './handler.js';
import { clusterOf } from './cluster-context.js';

const ENDPOINT_BROKER = 1;
const ENDPOINT_NAMES: Readonly<Record<number, string>> = { 1: 'BROKER', 2: 'CONTROLLER' };

export const describeClusterHandler = defineHandler({
  request: DescribeClusterRequest,
  response: DescribeClusterResponse,
  handle(request, ctx): DescribeClusterResponseDataInput {
    const c = clusterOf(ctx);
    if (request.endpointType !== ENDPOINT_BROKER) {
      return {
        errorCode: ErrorCode.MISMATCHED_ENDPOINT_TYPE,
        errorMessage: `The request was sent to an endpoint of type BROKER, but we wanted an endpoint of type ${ENDPOINT_NAMES[request.endpointType] ?? 'UNKNOWN'}`,
        endpointType: ENDPOINT_BROKER,
        clusterId: '',
        controllerId: -1,
        brokers: [],
      };
    }
    const image = c.metadata;
    return {
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      endpointType: ENDPOINT_BROKER,
      clusterId: image.clusterId,
      controllerId: image.controllerId,
      brokers: image.brokers().flatMap((b) => {
        const endpoint = endpointOn(b, ctx.session.listenerName);
        return endpoint === undefined
          ? []
          : [{ brokerId: b.nodeId, host: endpoint.host, port: endpoint.port, rack: b.rack, isFenced: false }];
      }),
      clusterAuthorizedOperations: authorizedOperations(
        ctx,
        request.includeClusterAuthorizedOperations,
        ResourceType.CLUSTER,
        CLUSTER_NAME,
      ),
    };
  },
});
