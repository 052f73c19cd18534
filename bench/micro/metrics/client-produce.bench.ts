/**
 * What the per-client produce breakdown adds to a Produce request's metrics on the main thread:
 * a request of four partition batches counted broker-wide (`produceRequest` + `batchAppended`,
 * as before the breakdown) against the same plus `clientProduce.request` and four
 * `ClientProduceStats.batch`, for 1 client id and for 1000 rotating ones (the default cap, every
 * lookup a different id). Prints CPU ns per request. Run: `npx tsc -p . && node dist/bench/micro/metrics/client-produce.bench.js`.
 */
import { BrokerMetrics } from '../../../src/common/metrics/broker-metrics.js';

const BATCHES = 4;
const ITERATIONS = 200_000;
const ROUNDS = 7;
const now = Date.now();
const ids = Array.from({ length: 1000 }, (_, i) => `producer-${i}`);

function request(metrics: BrokerMetrics, clientId: string | null): void {
  metrics.produceRequest(BATCHES);
  const stats = clientId === null ? null : metrics.clientProduce.request(clientId, BATCHES);
  for (let b = 0; b < BATCHES; b++) {
    metrics.batchAppended('orders', 16_384, 100);
    stats?.batch(16_384, 100, 0, now - 7, now - 2, now);
  }
}

const broker = new BrokerMetrics();
const single = new BrokerMetrics();
const many = new BrokerMetrics();
let next = 0;
const cases: Array<[string, () => void]> = [
  ['broker-wide only (before)', () => request(broker, null)],
  ['plus per-client, 1 client id', () => request(single, 'app')],
  ['plus per-client, 1000 client ids', () => request(many, ids[next++ % ids.length]!)],
];
// CPU time, not wall time: on a shared machine the wall clock mostly measures the neighbours.
// Rounds interleave the cases so drift hits all of them; the median round is reported.
const samples = cases.map(() => [] as number[]);
for (let round = 0; round < ROUNDS; round++) {
  cases.forEach(([, run], i) => {
    const start = process.cpuUsage();
    for (let n = 0; n < ITERATIONS; n++) run();
    const used = process.cpuUsage(start);
    samples[i]!.push(((used.user + used.system) * 1000) / ITERATIONS);
  });
}
cases.forEach(([name], i) => {
  const sorted = samples[i]!.sort((a, b) => a - b);
  process.stdout.write(
    `${name.padEnd(36)} ${sorted[ROUNDS >> 1]!.toFixed(0)} ns CPU per request of ${BATCHES} batches (median of ${ROUNDS} rounds)\n`,
  );
});
