/**
 * One KafkaJS group member in its own process, so a test can SIGKILL it: a member that dies
 * without a LeaveGroup is only noticed by the coordinator when its session times out.
 * Usage: node kafkajs-member-helper.js <bootstrap> <groupId> <topic> <sessionTimeoutMs>
 * Prints `{"assigned":[partitions...]}` after each join.
 */
import { Kafka, logLevel } from 'kafkajs';

const [bootstrap, groupId, topic, sessionTimeout] = process.argv.slice(2);
if (bootstrap === undefined || groupId === undefined || topic === undefined || sessionTimeout === undefined) {
  throw new Error('usage: kafkajs-member <bootstrap> <groupId> <topic> <sessionTimeoutMs>');
}
const consumer = new Kafka({ brokers: [bootstrap], logLevel: logLevel.NOTHING }).consumer({
  groupId,
  sessionTimeout: Number(sessionTimeout),
  heartbeatInterval: 500,
  maxWaitTimeInMs: 500,
});
consumer.on(consumer.events.GROUP_JOIN, (e) => {
  process.stdout.write(JSON.stringify({ assigned: e.payload.memberAssignment[topic] ?? [] }) + '\n');
});
await consumer.connect();
await consumer.subscribe({ topic, fromBeginning: true });
await consumer.run({ eachMessage: async () => undefined });
