/**
 * DescribeTopicPartitions (key 75): topics (the named ones, or all) in name order with their
 * partitions, at most `response_partition_limit` partitions per response; `next_cursor` names
 * the partition to continue from, and a request's cursor resumes there.
 */
import { ErrorCode } from '@sluice/protocol/errors.js';
import {
  DescribeTopicPartitionsRequest,
  DescribeTopicPartitionsResponse,
  type DescribeTopicPartitionsResponseCursorInput,
  type DescribeTopicPartitionsResponseDataInput,
  type DescribeTopicPartitionsResponseDescribeTopicPartitionsResponseTopicInput,
} from '@sluice/protocol/messages/index.js';
import { topicNameProblem } from '../metadata/topic-names.js';
import { ZERO_UUID } from '@sluice/protocol/common/uuid.js';
import { AclOperation, authorizedNames, authorizedOperations, ResourceType } from './authorization.js';
import { defineHandler } from './handler.js';
import { clusterOf } from './cluster-context.js';
import { partitionStates } from './topic-description.js';

/** Kafka's `max.request.partition.size.limit` default. */
const MAX_PARTITIONS_PER_RESPONSE = 2000;

type TopicResult = DescribeTopicPartitionsResponseDescribeTopicPartitionsResponseTopicInput;

export const describeTopicPartitionsHandler = defineHandler({
  request: DescribeTopicPartitionsRequest,
  response: DescribeTopicPartitionsResponse,
  handle(request, ctx): DescribeTopicPartitionsResponseDataInput {
    const c = clusterOf(ctx);
    const mayDescribe = authorizedNames(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC);
    // As Kafka: listing every topic leaves out those the principal may not DESCRIBE; one it names is refused.
    const names =
      request.topics.length === 0
        ? c.metadata
            .topics()
            .map((t) => t.name)
            .filter(mayDescribe)
        : [...new Set(request.topics.map((t) => t.name))].sort();
    const cursor = request.cursor;
    let budget = Math.min(Math.max(request.responsePartitionLimit, 1), MAX_PARTITIONS_PER_RESPONSE);
    const topics: TopicResult[] = [];
    let nextCursor: DescribeTopicPartitionsResponseCursorInput | null = null;
    for (const name of names) {
      if (cursor !== null && name < cursor.topicName) continue;
      const topic = c.metadata.topic(name);
      if (!mayDescribe(name)) {
        topics.push({ errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, name, topicId: ZERO_UUID, isInternal: false, partitions: [] });
        continue;
      }
      if (topic === undefined) {
        const code = topicNameProblem(name) === null ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION : ErrorCode.INVALID_TOPIC_EXCEPTION;
        // Kafka fills in the operations of every topic it may describe, existing or not.
        topics.push({
          errorCode: code,
          name,
          topicId: ZERO_UUID,
          isInternal: false,
          partitions: [],
          topicAuthorizedOperations: authorizedOperations(ctx, true, ResourceType.TOPIC, name),
        });
        continue;
      }
      if (budget === 0) {
        nextCursor = { topicName: name, partitionIndex: 0 };
        break;
      }
      const first = cursor !== null && name === cursor.topicName ? cursor.partitionIndex : 0;
      const last = Math.min(topic.partitionCount, first + budget);
      budget -= last - first;
      topics.push({
        errorCode: ErrorCode.NONE,
        name,
        topicId: topic.topicId,
        isInternal: topic.internal,
        partitions: partitionStates(topic, first, last).map((p) => ({ ...p, eligibleLeaderReplicas: [], lastKnownElr: [] })),
        topicAuthorizedOperations: authorizedOperations(ctx, true, ResourceType.TOPIC, name),
      });
      if (last < topic.partitionCount) {
        nextCursor = { topicName: name, partitionIndex: last };
        break;
      }
    }
    return { topics, nextCursor };
  },
});
