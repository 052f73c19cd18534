// The Java share consumer (kafka-clients 4.4.0, unmodified KafkaShareConsumer) and Admin on share
// groups, driven by the share-group tests. Single-file source program:
//   java -cp '<kafka libs>/*' ShareClients.java <scenario> <bootstrap> [args...]
// Prints what happened as JSON lines on stdout; the tests judge them.

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.*;
import java.util.concurrent.*;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.*;
import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;

public class ShareClients {
  static final ObjectMapper JSON = new ObjectMapper();
  static String bootstrap;

  public static void main(String[] args) throws Exception {
    bootstrap = args[1];
    switch (args[0]) {
      case "group-config" -> groupConfig(args[2], Arrays.copyOfRange(args, 3, args.length));
      case "consume" -> consume(args[2], args[3], Integer.parseInt(args[4]), args[5], Integer.parseInt(args[6]), Long.parseLong(args[7]));
      case "hold" -> hold(args[2], args[3], Integer.parseInt(args[4]));
      case "describe" -> describe(args[2]);
      case "dump" -> dump(args[2], Integer.parseInt(args[3]));
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
      System.out.flush();
    } catch (Exception e) {
      throw new RuntimeException(e);
    }
  }

  static Admin admin() {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    return Admin.create(p);
  }

  /** Sets GROUP configs (`key=value`) the way `kafka-configs.sh --entity-type groups` does. */
  static void groupConfig(String group, String[] settings) throws Exception {
    List<AlterConfigOp> ops = new ArrayList<>();
    for (String s : settings) {
      String[] kv = s.split("=", 2);
      ops.add(new AlterConfigOp(new ConfigEntry(kv[0], kv[1]), AlterConfigOp.OpType.SET));
    }
    try (Admin admin = admin()) {
      admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, group), ops)).all().get(30, TimeUnit.SECONDS);
    }
    emit("configured", "group", group);
  }

  static KafkaShareConsumer<String, String> consumer(String group, String clientId) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("group.id", group);
    p.put("client.id", clientId);
    p.put("share.acknowledgement.mode", "explicit");
    p.put("key.deserializer", StringDeserializer.class.getName());
    p.put("value.deserializer", StringDeserializer.class.getName());
    // -Dmax.poll.records=N: smaller deliveries, so that a test can act between them.
    String maxPollRecords = System.getProperty("max.poll.records");
    if (maxPollRecords != null) p.put("max.poll.records", maxPollRecords);
    return new KafkaShareConsumer<>(p);
  }

  /** What a consumer of the `consume` scenario does with a record it was given. */
  static AcknowledgeType decide(String behaviour, ConsumerRecord<String, String> r, short deliveryCount) {
    return switch (behaviour) {
      case "accept" -> AcknowledgeType.ACCEPT;
      // Released once, so that another delivery (possibly to another member) must follow.
      case "release-once" -> deliveryCount == 1 ? AcknowledgeType.RELEASE : AcknowledgeType.ACCEPT;
      // Values ending in an odd digit are rejected: they must never be delivered again.
      case "reject-odd" -> (r.value().charAt(r.value().length() - 1) - '0') % 2 == 1 ? AcknowledgeType.REJECT : AcknowledgeType.ACCEPT;
      // Never accepted: the delivery-count limit must archive every record.
      case "release-always" -> AcknowledgeType.RELEASE;
      // Values ending in -1 are rejected and values ending in -2 never accepted: both reach the dead-letter queue.
      case "dead-letter" -> r.value().endsWith("-1") ? AcknowledgeType.REJECT : r.value().endsWith("-2") ? AcknowledgeType.RELEASE : AcknowledgeType.ACCEPT;
      default -> throw new IllegalArgumentException("unknown behaviour " + behaviour);
    };
  }

  /**
   * `consumers` share consumers in one group, each on its own thread, acknowledging every record
   * as `behaviour` says (committing after each poll), until the group as a whole has accepted
   * `expect` distinct values (0: until `idleMs` pass without a record once one came). Each delivery
   * is printed, and after the commit each acceptance the broker confirmed (`acked`). A value counts
   * as accepted once confirmed; one whose confirmation failed (a partition leader died under the
   * commit) may have been acknowledged anyway, so the run also ends when every value was accepted,
   * confirmed or not, and `idleMs` passed without a record.
   */
  static void consume(String topic, String group, int consumers, String behaviour, int expect, long idleMs) throws Exception {
    Set<String> accepted = ConcurrentHashMap.newKeySet();
    Set<String> acceptedUnconfirmed = ConcurrentHashMap.newKeySet();
    AtomicBoolean done = new AtomicBoolean(false);
    long[] lastRecord = { 0 };
    ExecutorService pool = Executors.newFixedThreadPool(consumers);
    List<Future<?>> running = new ArrayList<>();
    for (int i = 0; i < consumers; i++) {
      String name = "c" + i;
      running.add(pool.submit(() -> {
        try (KafkaShareConsumer<String, String> consumer = consumer(group, name)) {
          consumer.subscribe(List.of(topic));
          while (!done.get()) {
            ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(200));
            for (ConsumerRecord<String, String> r : records) {
              short count = r.deliveryCount().orElse((short) -1);
              AcknowledgeType ack = decide(behaviour, r, count);
              consumer.acknowledge(r, ack);
              emit("record", "consumer", name, "partition", r.partition(), "offset", r.offset(), "value", r.value(), "deliveryCount", count, "ack", ack.name());
              if (ack == AcknowledgeType.ACCEPT) acceptedUnconfirmed.add(r.value());
            }
            if (!records.isEmpty()) {
              synchronized (lastRecord) { lastRecord[0] = System.currentTimeMillis(); }
              Set<String> failed = new HashSet<>();
              try {
                consumer.commitSync(Duration.ofSeconds(30)).forEach((tp, error) -> error.ifPresent(e -> {
                  failed.add(tp.topic() + "-" + tp.partition());
                  emit("ack-error", "consumer", name, "partition", tp.toString(), "error", e.toString());
                }));
              } catch (org.apache.kafka.common.KafkaException e) {
                for (ConsumerRecord<String, String> r : records) failed.add(r.topic() + "-" + r.partition());
                emit("ack-error", "consumer", name, "partition", "all", "error", e.toString());
              }
              for (ConsumerRecord<String, String> r : records) {
                if (decide(behaviour, r, r.deliveryCount().orElse((short) -1)) != AcknowledgeType.ACCEPT || failed.contains(r.topic() + "-" + r.partition())) continue;
                accepted.add(r.value());
                emit("acked", "consumer", name, "partition", r.partition(), "offset", r.offset(), "value", r.value());
              }
            }
            if (expect > 0 && accepted.size() >= expect) done.set(true);
            synchronized (lastRecord) {
              boolean idle = lastRecord[0] > 0 && System.currentTimeMillis() - lastRecord[0] > idleMs;
              if (idle && (expect == 0 || acceptedUnconfirmed.size() >= expect)) done.set(true);
            }
          }
        }
        return null;
      }));
    }
    long deadline = System.currentTimeMillis() + 120_000;
    for (Future<?> f : running) f.get(Math.max(1, deadline - System.currentTimeMillis()), TimeUnit.MILLISECONDS);
    pool.shutdown();
    emit("done", "accepted", accepted.size());
  }

  /**
   * One share consumer that takes records and never acknowledges them: the test kills this
   * process (SIGKILL) once it printed `held`, so the records stay acquired until their lock ends.
   */
  static void hold(String topic, String group, int atLeast) throws Exception {
    KafkaShareConsumer<String, String> consumer = consumer(group, "holder");
    consumer.subscribe(List.of(topic));
    List<String> held = new ArrayList<>();
    long deadline = System.currentTimeMillis() + 60_000;
    while (held.size() < atLeast && System.currentTimeMillis() < deadline) {
      for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) held.add(r.value());
    }
    emit("held", "values", held);
    Thread.sleep(Long.MAX_VALUE);
  }

  /**
   * The records of every partition of `topic` from its start, with their partition, key, value and
   * headers as text, once there are at least `count` (a plain consumer that assigns itself the partitions).
   */
  static void dump(String topic, int count) throws Exception {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("key.deserializer", StringDeserializer.class.getName());
    p.put("value.deserializer", StringDeserializer.class.getName());
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p)) {
      List<org.apache.kafka.common.TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
          .map(info -> new org.apache.kafka.common.TopicPartition(topic, info.partition())).toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      int seen = 0;
      long deadline = System.currentTimeMillis() + 60_000;
      while (seen < count && System.currentTimeMillis() < deadline) {
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
          Map<String, String> headers = new TreeMap<>();
          for (org.apache.kafka.common.header.Header h : r.headers()) headers.put(h.key(), h.value() == null ? null : new String(h.value(), java.nio.charset.StandardCharsets.UTF_8));
          emit("dead-letter", "partition", r.partition(), "key", r.key(), "value", r.value(), "headers", headers);
          seen++;
        }
      }
    }
  }

  /** The share group as Admin describes it, and its start offsets and lags (KIP-1226; -1 when unknown) per partition. */
  static void describe(String group) throws Exception {
    try (Admin admin = admin()) {
      ShareGroupDescription d = admin.describeShareGroups(List.of(group)).describedGroups().get(group).get(30, TimeUnit.SECONDS);
      List<Map<String, Object>> members = new ArrayList<>();
      for (ShareMemberDescription m : d.members()) {
        List<String> assigned = m.assignment().topicPartitions().stream().map(Object::toString).sorted().toList();
        members.add(Map.of("clientId", m.clientId(), "assignment", assigned));
      }
      Map<String, Long> offsets = new TreeMap<>();
      Map<String, Long> lags = new TreeMap<>();
      admin.listShareGroupOffsets(Map.of(group, new ListShareGroupOffsetsSpec())).partitionsToOffsetInfo(group).get(30, TimeUnit.SECONDS)
          .forEach((tp, info) -> {
            offsets.put(tp.toString(), info == null ? -1L : info.startOffset());
            lags.put(tp.toString(), info == null ? -1L : info.lag().orElse(-1L));
          });
      emit("described", "state", d.groupState().toString(), "members", members, "startOffsets", offsets, "lags", lags);
    }
  }
}
