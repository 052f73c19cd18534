/**
 * DeleteTopics (key 20): by name (every version) or by topic id (v6). Unknown names answer
 * UNKNOWN_TOPIC_OR_PARTITION, unknown ids UNKNOWN_TOPIC_ID, and everything answers
 * TOPIC_DELETION_DISABLED when `delete.topic.enable` is off. Like Kafka 4.4, internal topics
 * may be deleted.
 */
import { ERRORS, ErrorCode } from '@sluice/protocol/errors.js';
import {
  DeleteTopicsRequest,
  DeleteTopicsResponse,
  type DeleteTopicsResponseDataInput,
  type DeleteTopicsResponseDeletableTopicResultInput,
} from '@sluice/protocol/messages/index.js';
import type { TopicImage } from '../metadata/metadata-image.js';
import { ZERO_UUID } from '@sluice/protocol/common/uuid.js';
import { AclOperation, authorizedNames, ResourceType } from './authorization.js';
import { defineHandler } from './handler.js';
import { clusterOf, type ClusterContext } from './cluster-context.js';
import { answerEachOnce } from './answer-each-once.js';

type Result = DeleteTopicsResponseDeletableTopicResultInput;

interface Target {
  readonly name: string | null;
  readonly topicId: string;
}

function standardMessage(code: number): string | null {
  return code === ErrorCode.NONE ? null : (ERRORS.get(code)?.message ?? null);
}

function resultFor(target: Target, code: number, topic?: TopicImage, message = standardMessage(code)): Result {
  return {
    name: topic?.name ?? target.name,
    topicId: topic?.topicId ?? target.topicId,
    errorCode: code,
    errorMessage: message,
  };
}

async function deleteTarget(c: ClusterContext, target: Target, mayDelete: (name: string) => boolean): Promise<Result> {
  if (!c.admin.deletionEnabled) return resultFor(target, ErrorCode.TOPIC_DELETION_DISABLED);
  const topic = target.name !== null ? c.metadata.topic(target.name) : c.metadata.topicById(target.topicId);
  // As Kafka: a name is authorized before it is looked up; a topic id once it resolves to a name.
  const name = target.name ?? topic?.name;
  if (name !== undefined && !mayDelete(name)) return resultFor(target, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
  if (topic === undefined)
    return resultFor(target, target.name !== null ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION : ErrorCode.UNKNOWN_TOPIC_ID);
  const deleted = await c.admin.deleteTopic(topic);
  return resultFor(target, deleted.errorCode, topic, deleted.errorMessage ?? standardMessage(deleted.errorCode));
}

export const deleteTopicsHandler = defineHandler({
  request: DeleteTopicsRequest,
  response: DeleteTopicsResponse,
  async handle(request, ctx): Promise<DeleteTopicsResponseDataInput> {
    const c = clusterOf(ctx);
    const mayDelete = authorizedNames(ctx, AclOperation.DELETE, ResourceType.TOPIC);
    const targets: Target[] =
      ctx.header.requestApiVersion >= 6
        ? request.topics.map((t) => ({ name: t.topicId === ZERO_UUID ? t.name : null, topicId: t.topicId }))
        : request.topicNames.map((name) => ({ name, topicId: ZERO_UUID }));
    const responses = await answerEachOnce(
      targets,
      (t) => (t.name !== null ? `name:${t.name}` : `id:${t.topicId}`),
      (t) => resultFor(t, ErrorCode.INVALID_REQUEST, undefined, t.name !== null ? 'Duplicate topic name.' : 'Duplicate topic id.'),
      (t) => deleteTarget(c, t, mayDelete),
    );
    return { responses };
  },
});
