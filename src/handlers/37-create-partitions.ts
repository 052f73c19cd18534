/**
 * CreatePartitions (key 37): grows a topic to `count` partitions (never shrinks:
 * INVALID_PARTITIONS), with optional manual assignments (which can only name this broker), or
 * only checks with validate_only.
 */
import { ErrorCode } from '@sluice/protocol/errors.js';
import {
  CreatePartitionsRequest,
  CreatePartitionsResponse,
  type CreatePartitionsRequestCreatePartitionsTopic,
  type CreatePartitionsResponseCreatePartitionsTopicResultInput,
  type CreatePartitionsResponseDataInput,
} from '@sluice/protocol/messages/index.js';
import { AclOperation, authorized, ResourceType } from './authorization.js';
import { defineHandler } from './handler.js';
import { clusterOf, type ClusterContext } from './cluster-context.js';
import { answerEachOnce } from './answer-each-once.js';

type TopicResult = CreatePartitionsResponseCreatePartitionsTopicResultInput;

async function grow(c: ClusterContext, t: CreatePartitionsRequestCreatePartitionsTopic, validateOnly: boolean): Promise<TopicResult> {
  const assignments = t.assignments === null ? null : t.assignments.map((a) => a.brokerIds);
  const r = await c.admin.createPartitions(t.name, t.count, assignments, validateOnly);
  return { name: t.name, errorCode: r.errorCode, errorMessage: r.errorMessage };
}

export const createPartitionsHandler = defineHandler({
  request: CreatePartitionsRequest,
  response: CreatePartitionsResponse,
  async handle(request, ctx): Promise<CreatePartitionsResponseDataInput> {
    const c = clusterOf(ctx);
    const results = await answerEachOnce(
      request.topics,
      (t) => t.name,
      (t): TopicResult => ({ name: t.name, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'Duplicate topic name.' }),
      (t) =>
        authorized(ctx, AclOperation.ALTER, ResourceType.TOPIC, t.name)
          ? grow(c, t, request.validateOnly)
          : Promise.resolve({ name: t.name, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, errorMessage: null }),
    );
    return { results };
  },
});
