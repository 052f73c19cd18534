/**
 * DeleteTopics (key 20): by name (every version) or by topic id (v6). Unknown names answer
 * UNKNOWN_TOPIC_OR_PARTITION, unknown ids UNKNOWN_TOPIC_ID, and everything answers
 * TOPIC_DELETION_DISABLED when `delete.topic.enable` is off. Like Kafka 4.4, internal topics
 * may be deleted.
 */
import { ERRORS, ErrorCode } from '../protocol/errors.js';
import {
  DeleteTopicsRequest,
  DeleteTopicsResponse,
  type DeleteTopicsResponseDataInput,
  type DeleteTopicsResponseDeletableTopicResultInput,
} from '../protocol/messages/index.js';
import type { TopicImage } from '../cluster/metadata-image.js';
import { ZERO_UUID } from '../common/uuid.js';
import { defineHandler } from './handler.js';
import { clusterOf } from './cluster-context.js';

type Result = DeleteTopicsResponseDeletableTopicResultInput;

interface Target {
  readonly name: string | null;
  readonly topicId: string;
}

function standardMessage(code: number): string | null {
  return code === ErrorCode.NONE ? null : (ERRORS.get(code)?.message ?? null);
}

export const deleteTopicsHandler = defineHandler({
  request: DeleteTopicsRequest,
  response: DeleteTopicsResponse,
  async handle(request, ctx): Promise<DeleteTopicsResponseDataInput> {
    const c = clusterOf(ctx);
    const targets: Target[] =
      ctx.header.requestApiVersion >= 6
        ? request.topics.map((t) => ({ name: t.topicId === ZERO_UUID ? t.name : null, topicId: t.topicId }))
        : request.topicNames.map((name) => ({ name, topicId: ZERO_UUID }));
    const keyOf = (t: Target): string => (t.name !== null ? `name:${t.name}` : `id:${t.topicId}`);
    const counts = new Map<string, number>();
    for (const t of targets) counts.set(keyOf(t), (counts.get(keyOf(t)) ?? 0) + 1);
    const responses: Result[] = [];
    const seen = new Set<string>();
    for (const target of targets) {
      const key = keyOf(target);
      if (seen.has(key)) continue;
      seen.add(key);
      const result = (code: number, topic?: TopicImage, message = standardMessage(code)): Result => ({
        name: topic?.name ?? target.name,
        topicId: topic?.topicId ?? target.topicId,
        errorCode: code,
        errorMessage: message,
      });
      if (counts.get(key)! > 1) {
        responses.push(result(ErrorCode.INVALID_REQUEST, undefined, target.name !== null ? 'Duplicate topic name.' : 'Duplicate topic id.'));
        continue;
      }
      if (!c.admin.deletionEnabled) {
        responses.push(result(ErrorCode.TOPIC_DELETION_DISABLED));
        continue;
      }
      const topic = target.name !== null ? c.metadata.topic(target.name) : c.metadata.topicById(target.topicId);
      if (topic === undefined) {
        responses.push(result(target.name !== null ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION : ErrorCode.UNKNOWN_TOPIC_ID));
        continue;
      }
      const deleted = await c.admin.deleteTopic(topic);
      responses.push(result(deleted.errorCode, topic, deleted.errorMessage ?? standardMessage(deleted.errorCode)));
    }
    return { responses };
  },
});
