/** Builders for the KIP-848 coordinator tests: a mutable topics image, requests, simulated clients. */
import type {
  ConsumerGroupHeartbeatRequestData,
  ConsumerGroupHeartbeatResponseDataInput,
} from '@sluice/protocol/messages/api/68-consumer-group-heartbeat.js';
import { GroupCoordinator } from '../../../../../src/coordinator/group/group-coordinator.js';
import type { GroupCoordinatorConfig } from '../../../../../src/coordinator/group/config.js';
import type { CoordinatorRecord } from '../../../../../src/coordinator/group/records.js';
import type { TopicImage, TopicsImage } from '../../../../../src/coordinator/group/consumer/subscribed-topics.js';

export const GROUP = 'cg';
export const VERSION = 1;

export class FakeTopics implements TopicsImage {
  private readonly byName = new Map<string, TopicImage>();
  add(name: string, partitionCount: number): string {
    // A topic keeps its id when it grows; a new topic gets the next one (Kafka's base64 UUID text).
    const existing = this.byName.get(name);
    const bytes = Buffer.alloc(16);
    bytes.writeUInt32BE(this.byName.size + 1, 12);
    const topicId = existing?.topicId ?? bytes.toString('base64url');
    this.byName.set(name, { name, topicId, partitionCount });
    return topicId;
  }
  topic(name: string): TopicImage | undefined {
    return this.byName.get(name);
  }
  topicById(topicId: string): TopicImage | undefined {
    return [...this.byName.values()].find((t) => t.topicId === topicId);
  }
  topics(): TopicImage[] {
    return [...this.byName.values()];
  }
}

export function newCoordinator(config: Partial<GroupCoordinatorConfig> = {}): GroupCoordinator<string> {
  let n = 0;
  return new GroupCoordinator<string>({ config, newConsumerMemberId: () => `gen-${++n}` });
}

export function hbRequest(overrides: Partial<ConsumerGroupHeartbeatRequestData>): ConsumerGroupHeartbeatRequestData {
  return {
    groupId: GROUP,
    memberId: '',
    memberEpoch: 0,
    instanceId: null,
    rackId: null,
    rebalanceTimeoutMs: -1,
    subscribedTopicNames: null,
    subscribedTopicRegex: null,
    serverAssignor: null,
    topicPartitions: null,
    ...overrides,
  };
}

export type Owned = Map<string, number[]>;

/**
 * A client that follows the protocol: it joins, then heartbeats with its epoch and what it owns,
 * and owns exactly the last assignment it was sent (revoking at once). Records are kept in `log`.
 */
export class Client {
  memberEpoch = 0;
  owned: Owned = new Map();
  last: ConsumerGroupHeartbeatResponseDataInput | null = null;

  constructor(
    readonly c: GroupCoordinator<string>,
    readonly topics: FakeTopics,
    readonly memberId: string,
    readonly log: CoordinatorRecord[],
    readonly subscription: Partial<ConsumerGroupHeartbeatRequestData> = { subscribedTopicNames: ['t'] },
  ) {}

  join(now: number, extra: Partial<ConsumerGroupHeartbeatRequestData> = {}): ConsumerGroupHeartbeatResponseDataInput {
    this.owned = new Map();
    return this.send(
      now,
      hbRequest({
        memberId: this.memberId,
        memberEpoch: 0,
        rebalanceTimeoutMs: 30_000,
        topicPartitions: [],
        ...this.subscription,
        ...extra,
      }),
    );
  }

  heartbeat(now: number, extra: Partial<ConsumerGroupHeartbeatRequestData> = {}): ConsumerGroupHeartbeatResponseDataInput {
    const topicPartitions = [...this.owned].map(([topicId, partitions]) => ({ topicId, partitions }));
    return this.send(now, hbRequest({ memberId: this.memberId, memberEpoch: this.memberEpoch, topicPartitions, ...extra }));
  }

  leave(now: number, epoch = -1): ConsumerGroupHeartbeatResponseDataInput {
    const r = this.send(now, hbRequest({ memberId: this.memberId, memberEpoch: epoch, instanceId: this.subscription.instanceId ?? null }));
    this.owned = new Map();
    return r;
  }

  private send(now: number, request: ConsumerGroupHeartbeatRequestData): ConsumerGroupHeartbeatResponseDataInput {
    const result = this.c.consumerGroupHeartbeat(request, {
      apiVersion: VERSION,
      clientId: this.memberId,
      clientHost: '/127.0.0.1',
      now,
      topics: this.topics,
    });
    this.log.push(...result.records);
    const r = result.response;
    this.last = r;
    if (r.errorCode === 0) {
      this.memberEpoch = r.memberEpoch ?? 0;
      if (r.assignment) this.owned = new Map((r.assignment.topicPartitions ?? []).map((t) => [t.topicId ?? '', [...(t.partitions ?? [])]]));
    }
    return r;
  }

  partitions(): string[] {
    return [...this.owned].flatMap(([t, ps]) => ps.map((p) => `${t}:${p}`));
  }
}

/** Every (topic, partition) owned by more than one client. */
export function doubleOwned(clients: readonly Client[]): string[] {
  const seen = new Set<string>();
  const dup: string[] = [];
  for (const cl of clients) {
    for (const p of cl.partitions()) {
      if (seen.has(p)) dup.push(p);
      seen.add(p);
    }
  }
  return dup;
}

/** Heartbeats every client (in order) until nobody's epoch or ownership changes; checks safety at each step. */
export function settle(clients: readonly Client[], now: number, check: (clients: readonly Client[]) => void): void {
  for (let round = 0; round < 10; round++) {
    const before = JSON.stringify(clients.map((c) => [c.memberEpoch, c.partitions()]));
    for (const cl of clients) {
      cl.heartbeat(now);
      check(clients);
    }
    if (JSON.stringify(clients.map((c) => [c.memberEpoch, c.partitions()])) === before) return;
  }
  throw new Error('the group did not settle in 10 rounds');
}
