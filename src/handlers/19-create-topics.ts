/**
 * CreateTopics (key 19): checks names, partition counts, replication factor (a single broker
 * can hold one replica), manual assignments and configs with Kafka's error codes, then creates
 * the topic (or only checks, with validate_only). From v5 a successful result carries the
 * partition count, replication factor and every effective config.
 */
import { ErrorCode } from '@sluice/protocol/errors.js';
import {
  CreateTopicsRequest,
  CreateTopicsResponse,
  type CreateTopicsRequestCreatableTopic,
  type CreateTopicsResponseCreatableTopicResultInput,
  type CreateTopicsResponseDataInput,
} from '@sluice/protocol/messages/index.js';
import { AclOperation, authorized, authorizedOnCluster, ResourceType } from './authorization.js';
import { defineHandler } from './handler.js';
import { clusterOf, type ClusterContext } from './cluster-context.js';
import { answerEachOnce } from './answer-each-once.js';

type TopicResult = CreateTopicsResponseCreatableTopicResultInput;

function failure(name: string, errorCode: number, errorMessage: string | null): TopicResult {
  return { name, errorCode, errorMessage, numPartitions: -1, replicationFactor: -1, configs: [] };
}

async function create(c: ClusterContext, t: CreateTopicsRequestCreatableTopic, validateOnly: boolean): Promise<TopicResult> {
  const result = await c.admin.createTopic(
    {
      name: t.name,
      numPartitions: t.numPartitions,
      replicationFactor: t.replicationFactor,
      assignments: t.assignments.map((a) => ({ partitionIndex: a.partitionIndex, brokerIds: a.brokerIds })),
      configs: t.configs.map((kv) => ({ name: kv.name, value: kv.value })),
    },
    validateOnly,
  );
  if (result.topic === null) return failure(t.name, result.errorCode, result.errorMessage);
  const topic = result.topic;
  return {
    name: t.name,
    // As Kafka 4.4, validateOnly too answers with the id the topic would have been given.
    topicId: topic.topicId,
    errorCode: ErrorCode.NONE,
    errorMessage: null,
    numPartitions: topic.partitionCount,
    replicationFactor: result.replicationFactor,
    configs: c.configs.topicEntries(topic.configs).map((e) => ({
      name: e.definition.name,
      value: e.value,
      readOnly: e.readOnly,
      configSource: e.source,
      isSensitive: false,
    })),
  };
}

export const createTopicsHandler = defineHandler({
  request: CreateTopicsRequest,
  response: CreateTopicsResponse,
  async handle(request, ctx): Promise<CreateTopicsResponseDataInput> {
    const c = clusterOf(ctx);
    const mayCreateAny = authorizedOnCluster(ctx, AclOperation.CREATE);
    const topics = await answerEachOnce(
      request.topics,
      (t) => t.name,
      (t) => failure(t.name, ErrorCode.INVALID_REQUEST, 'Duplicate topic name.'),
      (t) =>
        mayCreateAny || authorized(ctx, AclOperation.CREATE, ResourceType.TOPIC, t.name)
          ? create(c, t, request.validateOnly)
          : Promise.resolve(failure(t.name, ErrorCode.TOPIC_AUTHORIZATION_FAILED, 'Authorization failed.')),
    );
    return { topics };
  },
});
