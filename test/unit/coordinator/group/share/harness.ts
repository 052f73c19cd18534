/** Builders for the share group coordinator tests: requests and a client that follows the protocol. */
import type {
  ShareGroupHeartbeatRequestData,
  ShareGroupHeartbeatResponseDataInput,
} from '@sluice/protocol/messages/api/76-share-group-heartbeat.js';
import type { GroupCoordinator } from '../../../../../src/coordinator/group/group-coordinator.js';
import type { ShareInitialization } from '../../../../../src/coordinator/group/share/share-initialization.js';
import type { CoordinatorRecord } from '../../../../../src/coordinator/group/records.js';
import { assignmentOfPairs } from '../../../../../src/coordinator/group/consumer/assignment.js';
import type { FakeTopics } from '../consumer/harness.js';

export const SHARE_GROUP = 'sg';

export function shareHb(overrides: Partial<ShareGroupHeartbeatRequestData>): ShareGroupHeartbeatRequestData {
  return { groupId: SHARE_GROUP, memberId: 'm', memberEpoch: 0, rackId: null, subscribedTopicNames: null, ...overrides };
}

export class ShareClient {
  memberEpoch = 0;
  assigned: Array<[string, number]> = [];
  last: ShareGroupHeartbeatResponseDataInput | null = null;
  /** Initializations the coordinator asked for, not yet reported back. */
  readonly pending: ShareInitialization[] = [];

  constructor(
    readonly c: GroupCoordinator<string>,
    readonly topics: FakeTopics,
    readonly memberId: string,
    readonly log: CoordinatorRecord[],
    readonly subscribed: string[] = ['t'],
  ) {}

  join(now: number): ShareGroupHeartbeatResponseDataInput {
    return this.send(now, shareHb({ memberId: this.memberId, memberEpoch: 0, subscribedTopicNames: this.subscribed }));
  }

  heartbeat(now: number, extra: Partial<ShareGroupHeartbeatRequestData> = {}): ShareGroupHeartbeatResponseDataInput {
    return this.send(now, shareHb({ memberId: this.memberId, memberEpoch: this.memberEpoch, ...extra }));
  }

  leave(now: number): ShareGroupHeartbeatResponseDataInput {
    return this.send(now, shareHb({ memberId: this.memberId, memberEpoch: -1 }));
  }

  /** Reports every pending initialization as done, as the service does once the persister answered. */
  initializeAll(): void {
    for (const init of this.pending.splice(0)) {
      const result = this.c.initializeShareGroupState(
        init.groupId,
        assignmentOfPairs(init.partitions.map((p) => [p.topicId, p.partition] as const)),
        this.topics,
      );
      this.log.push(...result.records);
    }
  }

  private send(now: number, request: ShareGroupHeartbeatRequestData): ShareGroupHeartbeatResponseDataInput {
    const result = this.c.shareGroupHeartbeat(request, { clientId: 'cli', clientHost: '/127.0.0.1', now, topics: this.topics });
    this.log.push(...result.records);
    const r = result.response.response;
    if (result.response.initialize !== null) this.pending.push(result.response.initialize);
    this.last = r;
    if (r.errorCode === 0) {
      this.memberEpoch = r.memberEpoch ?? 0;
      if (r.assignment)
        this.assigned = (r.assignment.topicPartitions ?? []).flatMap((t) =>
          (t.partitions ?? []).map((p) => [t.topicId ?? '', p] as [string, number]),
        );
    }
    return r;
  }
}
