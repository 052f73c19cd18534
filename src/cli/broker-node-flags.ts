/**
 * The Node flags a broker process runs with — Sluice's counterpart of Kafka's
 * KAFKA_JVM_PERFORMANCE_OPTS. `npm start` and the `sluice` launcher's shebang carry them (V8
 * takes them only on the command line: not in NODE_OPTIONS, and setting them at run time
 * crashes the collector); the benchmarks and the test helpers start brokers with them too.
 *
 * --single-threaded-gc: V8's parallel scavenger and concurrent marker run helper threads that
 * compete with the broker's own threads and the clients for the few cores a broker host
 * usually has. On 2 cores they cost as much CPU as the main thread itself; without them the
 * broker used ~35% less CPU per GB produced and produced ~20% more (docs/journal/performance.md).
 *
 * --max-semi-space-size=8: under steady load V8 grows the young generation to 2 × 16 MB, more
 * than the old generation's slack after a collection, so its soft trigger starts a mark-compact
 * every ~200 ms although the old generation does not grow. Capped at 2 × 8 MB the trigger stays
 * quiet: at 50 MB/s the broker spent 11% less CPU per GB, its end-to-end p99 fell by a third and
 * its peak RSS by 34 MiB, and the produce rows stayed even (docs/journal/performance.md,
 * "Mark-compacts on the latency row").
 */
export const BROKER_NODE_FLAGS: readonly string[] = ['--single-threaded-gc', '--max-semi-space-size=8'];
