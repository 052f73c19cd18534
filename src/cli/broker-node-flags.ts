/**
 * The Node flags a broker process runs with — Sluice's counterpart of Kafka's
 * KAFKA_JVM_PERFORMANCE_OPTS. `npm start` and the `sluice` launcher's shebang carry them (V8
 * takes them only on the command line: not in NODE_OPTIONS, and setting them at run time
 * crashes the collector); the benchmarks and the test helpers start brokers with them too.
 *
 * --single-threaded-gc: V8's parallel scavenger and concurrent marker run helper threads that
 * compete with the broker's own threads and the clients for the few cores a broker host
 * usually has. On 2 cores they cost as much CPU as the main thread itself; without them the
 * broker used ~35% less CPU per GB produced and produced ~20% more (docs/notes/performance.md).
 */
export const BROKER_NODE_FLAGS: readonly string[] = ['--single-threaded-gc'];
