/**
 * CreatePartitions (key 37): grows a topic to `count` partitions (never shrinks:
 * INVALID_PARTITIONS), with optional manual assignments (which can only name this broker), or
 * only checks with validate_only.
 */
import { ErrorCode } from '../protocol/errors.js';
import {
  CreatePartitionsRequest,
  CreatePartitionsResponse,
  type CreatePartitionsResponseCreatePartitionsTopicResultInput,
  type CreatePartitionsResponseDataInput,
} from '../protocol/messages/index.js';
import { defineHandler } from './handler.js';
import { clusterOf } from './cluster-context.js';

export const createPartitionsHandler = defineHandler({
  request: CreatePartitionsRequest,
  response: CreatePartitionsResponse,
  async handle(request, ctx): Promise<CreatePartitionsResponseDataInput> {
    const c = clusterOf(ctx);
    const counts = new Map<string, number>();
    for (const t of request.topics) counts.set(t.name, (counts.get(t.name) ?? 0) + 1);
    const results: CreatePartitionsResponseCreatePartitionsTopicResultInput[] = [];
    const seen = new Set<string>();
    for (const t of request.topics) {
      if (seen.has(t.name)) continue;
      seen.add(t.name);
      if (counts.get(t.name)! > 1) {
        results.push({ name: t.name, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'Duplicate topic name.' });
        continue;
      }
      const assignments = t.assignments === null ? null : t.assignments.map((a) => a.brokerIds);
      const r = await c.admin.createPartitions(t.name, t.count, assignments, request.validateOnly);
      results.push({ name: t.name, errorCode: r.errorCode, errorMessage: r.errorMessage });
    }
    return { results };
  },
});
