// The Java client (kafka-clients 4.4.0, unmodified) in classic consumer groups, driven by
// java-groups.test.ts. Single-file source program:
//   java -cp '<kafka libs>/*' GroupClients.java <scenario> <bootstrap> <topic> [strategy]
// One JVM runs a whole scenario, its members as KafkaConsumers on their own threads (the broker
// sees separate clients with separate connections), and prints what happened as JSON lines on
// stdout: rebalance callbacks, records, commits and the Admin views. The test judges them.

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.*;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.*;
import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.clients.producer.*;
import org.apache.kafka.common.*;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

public class GroupClients {
  static final ObjectMapper JSON = new ObjectMapper();
  static final int PARTITIONS = 4;
  static String bootstrap;
  static String topic;

  public static void main(String[] args) throws Exception {
    bootstrap = args[1];
    topic = args[2];
    switch (args[0]) {
      case "assignor" -> assignor(args[3]);
      case "static" -> staticMembership();
      case "alter-offsets" -> alterOffsets();
      default -> throw new IllegalArgumentException("unknown scenario " + args[0]);
    }
    System.out.flush();
  }

  static synchronized void emit(String type, Object... fields) {
    ObjectNode n = JSON.createObjectNode();
    n.put("type", type);
    for (int i = 0; i < fields.length; i += 2) n.set((String) fields[i], JSON.valueToTree(fields[i + 1]));
    try {
      System.out.println(JSON.writeValueAsString(n));
    } catch (Exception e) {
      throw new RuntimeException(e);
    }
  }

  static List<Integer> partitions(Collection<TopicPartition> tps) {
    return tps.stream().map(TopicPartition::partition).sorted().collect(Collectors.toList());
  }

  /** `perPartition` records "<tag>-<n>" to partition n % PARTITIONS. */
  static void produce(String tag, int perPartition) throws Exception {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("key.serializer", StringSerializer.class.getName());
    p.put("value.serializer", StringSerializer.class.getName());
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
      for (int n = 0; n < perPartition * PARTITIONS; n++) producer.send(new ProducerRecord<>(topic, n % PARTITIONS, null, tag + "-" + n)).get();
    }
  }

  /**
   * One group member on its own thread: subscribe, poll, commitSync after each non-empty poll,
   * and print every rebalance callback, record and commit, tagged with the member's name.
   */
  static final class Member implements Runnable {
    final String name;
    final KafkaConsumer<String, String> consumer;
    final AtomicBoolean running = new AtomicBoolean(true);
    final AtomicInteger records = new AtomicInteger();
    final AtomicInteger callbacks = new AtomicInteger();
    volatile List<Integer> owned = List.of();
    final Thread thread;

    Member(String name, String group, String strategy, String instanceId, int sessionTimeoutMs) {
      this.name = name;
      Properties p = new Properties();
      p.put("bootstrap.servers", bootstrap);
      p.put("group.id", group);
      p.put("group.protocol", "classic");
      p.put("client.id", name);
      p.put("partition.assignment.strategy", strategy);
      p.put("session.timeout.ms", String.valueOf(sessionTimeoutMs));
      p.put("heartbeat.interval.ms", "300");
      p.put("auto.offset.reset", "earliest");
      p.put("enable.auto.commit", "false");
      p.put("key.deserializer", StringDeserializer.class.getName());
      p.put("value.deserializer", StringDeserializer.class.getName());
      if (instanceId != null) p.put("group.instance.id", instanceId);
      consumer = new KafkaConsumer<>(p);
      thread = new Thread(this, name);
      thread.start();
    }

    public void run() {
      consumer.subscribe(List.of(topic), new ConsumerRebalanceListener() {
        public void onPartitionsRevoked(Collection<TopicPartition> tps) {
          callback("revoked", tps);
        }

        public void onPartitionsAssigned(Collection<TopicPartition> tps) {
          callback("assigned", tps);
        }

        public void onPartitionsLost(Collection<TopicPartition> tps) {
          callback("lost", tps);
        }
      });
      while (running.get()) {
        ConsumerRecords<String, String> polled = consumer.poll(Duration.ofMillis(100));
        if (polled.isEmpty()) continue;
        for (ConsumerRecord<String, String> r : polled) emit("record", "member", name, "partition", r.partition(), "offset", r.offset(), "value", r.value());
        consumer.commitSync();
        records.addAndGet(polled.count());
      }
      consumer.close();
      emit("closed", "member", name);
    }

    /** Eager protocols revoke everything and assign the new set; cooperative ones add and remove deltas. */
    void callback(String kind, Collection<TopicPartition> tps) {
      Set<Integer> now = new TreeSet<>(owned);
      if (kind.equals("assigned")) now.addAll(partitions(tps));
      else now.removeAll(partitions(tps));
      owned = List.copyOf(now);
      emit(kind, "member", name, "partitions", partitions(tps), "owned", owned);
      callbacks.incrementAndGet();
    }

    void close() throws InterruptedException {
      running.set(false);
      thread.join();
    }
  }

  static void await(String what, long timeoutMs, java.util.function.BooleanSupplier done) throws Exception {
    long deadline = System.currentTimeMillis() + timeoutMs;
    while (!done.getAsBoolean()) {
      if (System.currentTimeMillis() > deadline) throw new IllegalStateException("timed out waiting for " + what);
      Thread.sleep(50);
    }
  }

  /** The members own every partition once, each at least one. */
  static boolean split(Member... members) {
    List<Integer> all = new ArrayList<>();
    for (Member m : members) {
      if (m.owned.isEmpty()) return false;
      all.addAll(m.owned);
    }
    Collections.sort(all);
    return all.equals(List.of(0, 1, 2, 3));
  }

  /**
   * A first member reads what was produced and commits it; a second member joins and the two
   * split the partitions; new records are read by whichever member owns their partition.
   */
  static void assignor(String strategy) throws Exception {
    String group = "java-" + strategy;
    String strategyClass = switch (strategy) {
      case "range" -> RangeAssignor.class.getName();
      case "roundrobin" -> RoundRobinAssignor.class.getName();
      case "sticky" -> StickyAssignor.class.getName();
      case "cooperative-sticky" -> CooperativeStickyAssignor.class.getName();
      default -> throw new IllegalArgumentException(strategy);
    };
    produce(group + "-a", 3);
    Member first = new Member(group + "-1", group, strategyClass, null, 6000);
    await("the first member to read every record", 30_000, () -> first.records.get() == 3 * PARTITIONS);
    emit("phase", "name", "second-joins");
    Member second = new Member(group + "-2", group, strategyClass, null, 6000);
    await("the two members to split the partitions", 30_000, () -> split(first, second));
    produce(group + "-b", 2);
    await("the second batch read", 30_000, () -> first.records.get() + second.records.get() >= 5 * PARTITIONS);
    describe(group);
    first.close();
    second.close();
  }

  /**
   * Two static members split the partitions; the first is closed (a static member sends no
   * LeaveGroup) and a new consumer with the same group.instance.id takes its place within the
   * session timeout: the coordinator swaps the member id without a rebalance.
   */
  static void staticMembership() throws Exception {
    String group = "java-static";
    String range = RangeAssignor.class.getName();
    Member a = new Member("static-a", group, range, "instance-a", 10_000);
    Member b = new Member("static-b", group, range, "instance-b", 10_000);
    await("the static members to split the partitions", 30_000, () -> split(a, b));
    // Let the group settle: no callbacks for a while.
    int settled;
    do {
      settled = a.callbacks.get() + b.callbacks.get();
      Thread.sleep(1500);
    } while (settled != a.callbacks.get() + b.callbacks.get());
    describe(group);
    emit("phase", "name", "restart");
    a.close();
    Member again = new Member("static-a-again", group, range, "instance-a", 10_000);
    await("the restarted member to be assigned", 30_000, () -> !again.owned.isEmpty());
    // Heartbeats every 300 ms: a rebalance started by the restart would reach b within this.
    Thread.sleep(3000);
    produce(group, 2);
    await("the records read", 30_000, () -> again.records.get() + b.records.get() >= 2 * PARTITIONS);
    emit("phase", "name", "end");
    describe(group);
    again.close();
    b.close();
  }

  /**
   * Admin alterConsumerGroupOffsets for a group without members: a partition of `topic`, an
   * index past its last partition, and a topic that does not exist. Prints each partition's
   * outcome (the exception's class when it failed), then the group's committed offsets.
   */
  static void alterOffsets() throws Exception {
    String group = topic + "-admin";
    TopicPartition present = new TopicPartition(topic, 0);
    TopicPartition outside = new TopicPartition(topic, PARTITIONS);
    TopicPartition missing = new TopicPartition(topic + "-missing", 0);
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    try (Admin admin = Admin.create(p)) {
      AlterConsumerGroupOffsetsResult result = admin.alterConsumerGroupOffsets(group, Map.of(present, new OffsetAndMetadata(7), outside, new OffsetAndMetadata(1), missing, new OffsetAndMetadata(1)));
      Map<String, String> outcomes = new TreeMap<>();
      for (TopicPartition tp : List.of(present, outside, missing)) {
        try {
          result.partitionResult(tp).get();
          outcomes.put(tp.toString(), "ok");
        } catch (ExecutionException e) {
          outcomes.put(tp.toString(), e.getCause().getClass().getSimpleName());
        }
      }
      emit("altered", "group", group, "outcomes", outcomes);
      Map<String, Long> offsets = new TreeMap<>();
      for (Map.Entry<TopicPartition, OffsetAndMetadata> e : admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get().entrySet()) {
        offsets.put(e.getKey().toString(), e.getValue().offset());
      }
      emit("offsets", "group", group, "offsets", offsets);
    }
  }

  /** The Admin views of `group`: listConsumerGroups, describeConsumerGroups, listConsumerGroupOffsets. */
  static void describe(String group) throws Exception {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    try (Admin admin = Admin.create(p)) {
      for (ConsumerGroupListing l : admin.listConsumerGroups().all().get()) {
        if (l.groupId().equals(group)) emit("listed", "group", l.groupId(), "simple", l.isSimpleConsumerGroup(), "state", String.valueOf(l.groupState().orElse(null)), "groupType", String.valueOf(l.type().orElse(null)));
      }
      ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(group)).all().get().get(group);
      List<Map<String, Object>> members = new ArrayList<>();
      for (MemberDescription m : d.members()) {
        Map<String, Object> md = new TreeMap<>();
        md.put("clientId", m.clientId());
        md.put("instanceId", m.groupInstanceId().orElse(null));
        md.put("partitions", partitions(m.assignment().topicPartitions()));
        members.add(md);
      }
      members.sort(Comparator.comparing(m -> (String) m.get("clientId")));
      emit("described", "group", d.groupId(), "state", String.valueOf(d.groupState()), "assignor", d.partitionAssignor(), "simple", d.isSimpleConsumerGroup(), "groupType", String.valueOf(d.type()), "members", members);
      Map<String, Long> offsets = new TreeMap<>();
      for (Map.Entry<TopicPartition, OffsetAndMetadata> e : admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get().entrySet()) {
        offsets.put(e.getKey().toString(), e.getValue().offset());
      }
      emit("offsets", "group", group, "offsets", offsets);
    }
  }
}
