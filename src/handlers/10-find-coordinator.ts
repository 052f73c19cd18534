/**
 * FindCoordinator (key 10): this broker coordinates every group (it leads every
 * `__consumer_offsets` partition), so the answer is always this node — one key in v0–3, a batch
 * in v4+. Looking up a group also starts loading its coordinator, as Kafka does, so the
 * following JoinGroup rarely waits. Transaction keys also answer this node; InitProducerId then
 * refuses transactional ids until transactions exist.
 */
import { ErrorCode } from '../protocol/errors.js';
import { FindCoordinatorRequest, FindCoordinatorResponse, type FindCoordinatorResponseCoordinatorInput } from '../protocol/messages/index.js';
import { clusterOf } from './cluster-context.js';
import { defineHandler } from './handler.js';
import { coordinatorErrorCode } from './group-errors.js';

const GROUP_KEY_TYPE = 0;
const TRANSACTION_KEY_TYPE = 1;
const BATCHED_VERSION = 4;

export const findCoordinatorHandler = defineHandler({
  request: FindCoordinatorRequest,
  response: FindCoordinatorResponse,
  async handle(request, ctx) {
    const c = clusterOf(ctx);
    const node = c.metadata.node;
    const keys = ctx.header.requestApiVersion >= BATCHED_VERSION ? request.coordinatorKeys : [request.key];
    const coordinators: FindCoordinatorResponseCoordinatorInput[] = await Promise.all(
      keys.map(async (key) => {
        const base = { key, nodeId: node.nodeId, host: node.host, port: node.port };
        if (request.keyType !== GROUP_KEY_TYPE && request.keyType !== TRANSACTION_KEY_TYPE) {
          return { ...base, nodeId: -1, host: '', port: -1, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `unknown key type ${request.keyType}` };
        }
        if (request.keyType === GROUP_KEY_TYPE) {
          if (key === '') return { ...base, nodeId: -1, host: '', port: -1, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'empty group id' };
          try {
            await c.groups.prepare(key);
          } catch (err) {
            return { ...base, nodeId: -1, host: '', port: -1, errorCode: coordinatorErrorCode(err), errorMessage: null };
          }
        }
        return { ...base, errorCode: ErrorCode.NONE, errorMessage: null };
      }),
    );
    if (ctx.header.requestApiVersion >= BATCHED_VERSION) return { throttleTimeMs: 0, coordinators };
    const only = coordinators[0]!;
    return { throttleTimeMs: 0, errorCode: only.errorCode, errorMessage: only.errorMessage, nodeId: only.nodeId, host: only.host, port: only.port };
  },
});
