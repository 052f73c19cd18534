/**
 * The group coordinators over the generic runtime: the committed-offsets read for the lag
 * metrics never creates __consumer_offsets, answers only once what it saw is durable, and leaves
 * out a coordinator that failed to load; groups follow the leadership of their partitions.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Logger } from '../../../../src/common/logger.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { GroupCoordinatorService } from '../../../../src/coordinator/group/group-coordinator-service.js';
import type { CoordinatorLog } from '../../../../src/coordinator/runtime/coordinator-log.js';
import { commitRequest } from './harness.js';

const PARTITIONS = 4;

/** An in-memory __consumer_offsets whose appends are held until the test releases them. */
class HeldLog implements CoordinatorLog {
  created = false;
  failReplayOf: number | null = null;
  private holding = true;
  private readonly held: Array<() => void> = [];

  exists(): boolean {
    return this.created;
  }
  async ensureTopic(): Promise<void> {
    this.created = true;
  }
  append(): Promise<number> {
    if (!this.holding) return Promise.resolve(ErrorCode.NONE);
    return new Promise((resolve) => this.held.push(() => resolve(ErrorCode.NONE)));
  }
  appendMarker(): Promise<number> {
    return this.append();
  }
  async replay(partition: number): Promise<number> {
    return partition === this.failReplayOf ? ErrorCode.KAFKA_STORAGE_ERROR : ErrorCode.NONE;
  }
  /** Lands the held appends, and every later one at once. */
  release(): void {
    this.holding = false;
    for (const land of this.held.splice(0)) land();
  }
}

function service(log: CoordinatorLog, leads: (partition: number) => boolean = () => true): GroupCoordinatorService {
  return new GroupCoordinatorService({ log, numPartitions: PARTITIONS, config: {}, leads, logger: new Logger('test') });
}

const settled = async <T>(p: Promise<T>): Promise<{ done: boolean }> => {
  const state = { done: false };
  void p.then(() => (state.done = true));
  await new Promise((r) => setImmediate(r));
  return state;
};

test('committed offsets: nothing loaded, nothing created', async () => {
  const log = new HeldLog();
  const runtime = service(log);
  assert.deepEqual(await runtime.committedOffsets(), []);
  assert.equal(log.created, false, 'a scrape does not create __consumer_offsets');
  runtime.close();
});

test('committed offsets are answered once durable, from every loaded coordinator; a failed load is left out', async () => {
  const log = new HeldLog();
  const runtime = service(log);
  const groups = ['g-a', 'g-b', 'g-c', 'g-d', 'g-e', 'g-f'];
  const commits = groups.map((g, i) =>
    runtime.run(g, (c, now) => c.commitOffsets(commitRequest(-1, '', [{ topic: 't', partition: i, offset: BigInt(10 + i) }], g), 8, now)),
  );
  const read = runtime.committedOffsets();
  await new Promise((r) => setImmediate(r));
  assert.equal((await settled(read)).done, false, 'the commits are not durable yet');
  log.release();
  await Promise.all(commits);
  const offsets = await read;
  assert.deepEqual(offsets.map((o) => [o.group, o.partition, o.offset]).sort(), groups.map((g, i) => [g, i, BigInt(10 + i)]).sort());

  // A coordinator whose partition cannot be replayed is left out; the others still answer.
  const broken = new HeldLog();
  broken.failReplayOf = runtime.partitionOf('g-a');
  const partial = service(broken);
  const landed = groups.map((g) =>
    partial
      .run(g, (c, now) => c.commitOffsets(commitRequest(-1, '', [{ topic: 't', partition: 0, offset: 1n }], g), 8, now))
      .catch(() => 'failed'),
  );
  await new Promise((r) => setImmediate(r));
  const survivors = partial.committedOffsets();
  broken.release();
  await Promise.all(landed);
  const expected = groups.filter((g) => partial.partitionOf(g) !== broken.failReplayOf).sort();
  assert.ok(expected.length > 0 && expected.length < groups.length, 'the groups spread over failing and working partitions');
  assert.deepEqual((await survivors).map((o) => o.group).sort(), expected);
  runtime.close();
  partial.close();
});

test("a group whose partition this broker does not lead answers NOT_COORDINATOR (FindCoordinator's preparation loads nothing there); losing leadership unloads it", async () => {
  const log = new HeldLog();
  log.release();
  let led = new Set([0, 1, 2, 3]);
  const groups = service(log, (p) => led.has(p));
  const commit = (g: string): Promise<unknown> =>
    groups.run(g, (c, now) => c.commitOffsets(commitRequest(-1, '', [{ topic: 't', partition: 0, offset: 5n }], g), 8, now));
  await commit('g-a');
  const partition = groups.partitionOf('g-a');
  led = new Set([0, 1, 2, 3].filter((p) => p !== partition));
  groups.onLeadership();
  await assert.rejects(commit('g-a'), (err: unknown) => (err as { code?: number }).code === ErrorCode.NOT_COORDINATOR);
  // FindCoordinator's preparation on a broker that does not lead the group's partition loads nothing and does not fail: the leader coordinates.
  await groups.prepare('g-a');
  await assert.rejects(commit('g-a'), (err: unknown) => (err as { code?: number }).code === ErrorCode.NOT_COORDINATOR);
  led.add(partition);
  groups.onLeadership();
  await commit('g-a');
  groups.close();
});
