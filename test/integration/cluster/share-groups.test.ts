// Share groups on a three-broker ZooKeeper cluster with Kafka's own share consumer (kafka-clients
// 4.4.0 KafkaShareConsumer, through ShareClients.java). Each group is picked so that no data
// partition's leader also leads the `__share_group_state` partition holding that share-partition's
// state: every acknowledgement the leader persists travels as WriteShareGroupState to another
// broker. Every record is accepted exactly once; then, while consumers run, kill -9 of a data
// partition's leader, and later of the broker holding a share-partition's state: every record is
// still accepted, and no record whose acceptance the broker confirmed is ever delivered again
// (one whose commit failed under the kill may be, at-least-once).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Kafka, logLevel } from 'kafkajs';
import { partitionFor } from '../../../src/coordinator/group/partition-for.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { SHARE_GROUP_STATE_TOPIC } from '@sluice/protocol/internal-topics.js';
import * as M from '@sluice/protocol/messages/index.js';
import type { MetadataResponseData } from '@sluice/protocol/messages/index.js';
import { startCluster, type TestCluster } from '../../helpers/cluster.js';
import type { JsonLine } from '../../helpers/interop.js';
import { javaSkip, zooKeeperSkip } from '../../helpers/requirements.js';
import { wireCall } from '../../helpers/wire-call.js';
import { startJavaProgram, waitFor } from '../groups/group-helpers.js';

const TOPIC = 'shared-work';
const PARTITIONS = 3;
const STATE_PARTITIONS = 3;
const COUNT = 300;
/** Records reach the consumers a few at a time, so that a kill lands between deliveries. */
const MAX_POLL_RECORDS = 10;
const PRODUCE_BATCHES = 20;
/** The group config resource type of IncrementalAlterConfigs (KIP-848). */
const GROUP_RESOURCE = 32;

/**
 * Kafka's 30 s acquisition locks: on two busy cores a short lock can end before the consumer
 * acknowledges, which would be a legitimate redelivery and blur what these tests check. Failover
 * does not wait for locks (a new leader starts from the persisted state). Short sessions let the
 * group coordinator's move after a kill pass quickly.
 */
const BROKER_CONFIG = {
  'group.share.min.session.timeout.ms': '3000',
  'group.share.session.timeout.ms': '6000',
  'group.share.min.heartbeat.interval.ms': '500',
  'group.share.heartbeat.interval.ms': '1000',
  'share.coordinator.state.topic.num.partitions': String(STATE_PARTITIONS),
  'share.coordinator.state.topic.replication.factor': '3',
  'share.coordinator.state.topic.min.isr': '2',
};

const leaderOf = (m: MetadataResponseData, topic: string, partition: number): number =>
  m.topics.find((t) => t.name === topic)?.partitions.find((p) => p.partitionIndex === partition)?.leaderId ?? -1;

/** Every partition of `topics` led, with all three replicas in sync. */
const settled =
  (topics: readonly string[]) =>
  (m: MetadataResponseData): boolean =>
    m.brokers.length === 3 &&
    topics.every((name) => {
      const t = m.topics.find((x) => x.name === name);
      return (
        t !== undefined &&
        t.errorCode === ErrorCode.NONE &&
        t.partitions.length > 0 &&
        t.partitions.every((p) => p.leaderId >= 0 && p.isrNodes.length === 3)
      );
    });

/** A share-partition's key for FindCoordinator type 2, whose hash places its state. */
const stateKey = (group: string, topicId: string, partition: number): string => `${group}:${topicId}:${partition}`;

interface Delivery {
  type: string;
  consumer: string;
  partition: number;
  offset: number;
  value: string;
  ack?: string;
}

/**
 * What a `consume` run must show: every value accepted, and each confirmed acceptance was of the
 * record's latest delivery, which stayed its last (no delivery of it after the broker confirmed).
 */
function assertAcceptedAtLeastOnce(lines: readonly JsonLine[], values: readonly string[]): Delivery[] {
  const events = lines.filter((l) => l['type'] === 'record' || l['type'] === 'acked') as unknown as Delivery[];
  // A record is a log position: a value the log holds twice is two records.
  const latest = new Map<string, Delivery>();
  const confirmed = new Set<string>();
  for (const e of events) {
    const at = `${e.partition}@${e.offset}`;
    if (e.type === 'record') {
      assert.ok(!confirmed.has(at), `${e.value} at ${at} delivered again (to ${e.consumer}) after its acceptance was confirmed`);
      latest.set(at, e);
    } else {
      assert.equal(
        latest.get(at)?.consumer,
        e.consumer,
        `${e.value} at ${at}: confirmed for ${e.consumer}, who does not hold its latest delivery`,
      );
      confirmed.add(at);
    }
  }
  const accepted = new Set(events.filter((e) => e.type === 'record' && e.ack === 'ACCEPT').map((e) => e.value));
  assert.deepEqual(
    values.filter((v) => !accepted.has(v)),
    [],
    'every record accepted',
  );
  return events;
}

describe('share groups on a ZooKeeper cluster, state and data on different brokers', { skip: zooKeeperSkip() ?? javaSkip() }, () => {
  let cluster: TestCluster;
  let topicId: string;
  const values = Array.from({ length: COUNT }, (_, i) => `w-${i}`);

  before(async () => {
    cluster = await startCluster(3, BROKER_CONFIG);
    const created = await wireCall(cluster.anyBroker(), M.CreateTopicsRequest, M.CreateTopicsResponse, 7, {
      topics: [
        {
          name: TOPIC,
          numPartitions: PARTITIONS,
          replicationFactor: 3,
          assignments: [],
          configs: [{ name: 'min.insync.replicas', value: '2' }],
        },
      ],
      timeoutMs: 30_000,
      validateOnly: false,
    });
    assert.equal(created.topics[0]!.errorCode, ErrorCode.NONE);
    topicId = created.topics[0]!.topicId;
    await cluster.waitFor(`${TOPIC} in sync`, settled([TOPIC]));
    // KafkaJS writes a batch twice when one leader of a send refuses its part while another's
    // acks=all part is still in flight: the retry sends the in-flight part again with sequences
    // already advanced (its sendMessages), which no broker can tell from new records. Producing
    // before every leader serves its partition set that off in 2 of ~12 runs.
    await cluster.waitForLeaders([TOPIC]);
    const kafka = new Kafka({ brokers: cluster.bootstrap().split(','), logLevel: logLevel.NOTHING });
    // Idempotent: a send retried after a lost answer (a loaded machine, a leader still settling)
    // must not write its records twice, or the log holds more than the COUNT records delivered once.
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    // Small log batches: a share partition hands out whole batches.
    const perBatch = COUNT / PRODUCE_BATCHES;
    for (let b = 0; b < PRODUCE_BATCHES; b++) {
      await producer.send({
        topic: TOPIC,
        acks: -1,
        messages: values.slice(b * perBatch, (b + 1) * perBatch).map((value, i) => ({ value, partition: i % PARTITIONS })),
      });
    }
    await producer.disconnect();
    // FindCoordinator for a share-partition creates __share_group_state.
    await waitFor('__share_group_state created', 30_000, async () => {
      const found = await wireCall(cluster.anyBroker(), M.FindCoordinatorRequest, M.FindCoordinatorResponse, 6, {
        keyType: 2,
        coordinatorKeys: [stateKey('any', topicId, 0)],
      });
      return found.coordinators[0]?.errorCode === ErrorCode.NONE ? true : undefined;
    });
    await cluster.waitFor('__share_group_state in sync', settled([TOPIC, SHARE_GROUP_STATE_TOPIC]));
  });

  after(async () => {
    await cluster?.stop();
  });

  /** A group starting at the log start whose every share-partition's state another broker than the data leader holds. */
  async function separatedGroup(prefix: string): Promise<{ group: string; metadata: MetadataResponseData }> {
    const metadata = await cluster.waitFor('the cluster settled', settled([TOPIC, SHARE_GROUP_STATE_TOPIC]), 60_000);
    const stateLeader = (group: string, p: number): number =>
      leaderOf(metadata, SHARE_GROUP_STATE_TOPIC, partitionFor(stateKey(group, topicId, p), STATE_PARTITIONS));
    const group = Array.from({ length: 500 }, (_, i) => `${prefix}-${i}`).find((g) =>
      Array.from({ length: PARTITIONS }, (_, p) => p).every((p) => stateLeader(g, p) !== leaderOf(metadata, TOPIC, p)),
    );
    assert.ok(group !== undefined, 'a group whose state lives apart from its data');
    const altered = await wireCall(cluster.anyBroker(), M.IncrementalAlterConfigsRequest, M.IncrementalAlterConfigsResponse, 1, {
      resources: [
        {
          resourceType: GROUP_RESOURCE,
          resourceName: group,
          configs: [{ name: 'share.auto.offset.reset', configOperation: 0, value: 'earliest' }],
        },
      ],
      validateOnly: false,
    });
    assert.equal(altered.responses[0]!.errorCode, ErrorCode.NONE);
    return { group, metadata };
  }

  /**
   * Three share consumers accepting every record, at most `MAX_POLL_RECORDS` a poll; `during` runs
   * once `atAcked` acceptances of partition 0 were confirmed. Answers every line and how many
   * records of partition 0 were confirmed by then.
   */
  async function consumeAll(
    group: string,
    atAcked: number,
    during: () => void = () => undefined,
  ): Promise<{ lines: JsonLine[]; partition0Before: number }> {
    const args = ['consume', cluster.bootstrap(), TOPIC, group, '3', 'accept', String(COUNT), '5000'];
    const client = startJavaProgram('test/integration/share/ShareClients.java', `ShareClients consume ${group}`, args, {
      'max.poll.records': String(MAX_POLL_RECORDS),
    });
    const before = await waitFor(`${atAcked} acceptances of partition 0 confirmed`, 90_000, () => {
      client.assertStarted();
      const acked = client.json().filter((l) => l['type'] === 'acked' && l['partition'] === 0);
      return acked.length >= atAcked ? acked : undefined;
    });
    during();
    await client.succeeded(120_000);
    return { lines: client.json(), partition0Before: before.length };
  }

  const kill = (id: number): void => void cluster.brokers[id - 1]!.child.kill('SIGKILL');

  /** Brings a killed broker back and its preferred leaderships with it, so the next group finds leaders on all three. */
  async function restart(id: number): Promise<void> {
    await cluster.startBroker(id);
    await cluster.waitFor(`broker ${id} back in sync`, settled([TOPIC, SHARE_GROUP_STATE_TOPIC]), 60_000);
    // The controller may not count the returning broker in every ISR yet when the first election is
    // asked for (the metadata above can come from another broker): ask until it has elected them all.
    // ElectLeaders goes to the controller, as Kafka's admin client sends it: another broker answers
    // NOT_CONTROLLER and elects nothing.
    let pending = '';
    await waitFor('preferred leaders', 60_000, async () => {
      const before = await cluster.metadata(null);
      const controller = cluster.brokers[before.controllerId - 1];
      if (controller === undefined) return undefined;
      const elected = await wireCall(controller.bootstrap, M.ElectLeadersRequest, M.ElectLeadersResponse, 2, {
        electionType: 0,
        topicPartitions: null,
        timeoutMs: 30_000,
      });
      const refused = new Map(
        elected.replicaElectionResults.flatMap((t) => t.partitionResult.map((p) => [`${t.topic}-${p.partitionId}`, p.errorCode] as const)),
      );
      const m = await cluster.metadata(null);
      const off = m.topics.flatMap((t) =>
        t.partitions
          .filter((p) => p.leaderId !== p.replicaNodes[0])
          .map(
            (p) =>
              `${t.name}-${p.partitionIndex} leader ${p.leaderId} replicas [${p.replicaNodes.join(',')}] isr [${p.isrNodes.join(',')}] election error ${refused.get(`${t.name}-${p.partitionIndex}`)}`,
          ),
      );
      pending = `controller ${before.controllerId} (answered ${elected.errorCode}); ${off.join('; ')}`;
      return off.length === 0 ? true : undefined;
    }).catch((e: unknown) => {
      throw new Error(`${(e as Error).message}; not on their preferred leader: ${pending}`);
    });
  }

  test('every record accepted exactly once, the acknowledgements persisted on other brokers', { timeout: 120_000 }, async () => {
    const { group } = await separatedGroup('calm');
    const { lines } = await consumeAll(group, 0);
    assert.deepEqual(
      lines.filter((l) => l['type'] === 'ack-error'),
      [],
    );
    const events = assertAcceptedAtLeastOnce(lines, values);
    // Counted by log position, not by value: a batch the producer wrote twice (see `before`) is
    // two records for the share group, each to be delivered once.
    const deliveries = events.filter((e) => e.type === 'record');
    const positions = new Set(deliveries.map((e) => `${e.partition}@${e.offset}`));
    assert.ok(positions.size >= COUNT, `${positions.size} records delivered, ${COUNT} written`);
    assert.equal(deliveries.length, positions.size, 'one delivery per record');
    assert.equal(events.filter((e) => e.type === 'acked').length, positions.size, 'one confirmed acceptance per record');
  });

  test(
    'kill -9 of a data partition leader while consumers run: every record accepted, none confirmed delivered again',
    { timeout: 150_000 },
    async () => {
      const { group, metadata } = await separatedGroup('data-kill');
      const victim = leaderOf(metadata, TOPIC, 0);
      const { lines, partition0Before } = await consumeAll(group, 10, () => kill(victim));
      assert.ok(partition0Before < COUNT / PARTITIONS, 'the kill came while partition 0 still had records to deliver');
      assertAcceptedAtLeastOnce(lines, values);
      await restart(victim);
    },
  );

  test(
    'kill -9 of the broker holding share-partition state while consumers run: every record accepted, none confirmed delivered again',
    { timeout: 150_000 },
    async () => {
      const { group, metadata } = await separatedGroup('state-kill');
      const victim = leaderOf(metadata, SHARE_GROUP_STATE_TOPIC, partitionFor(stateKey(group, topicId, 0), STATE_PARTITIONS));
      const { lines, partition0Before } = await consumeAll(group, 10, () => kill(victim));
      assert.ok(partition0Before < COUNT / PARTITIONS, 'the kill came while partition 0 still had records to deliver');
      assertAcceptedAtLeastOnce(lines, values);
    },
  );
});
