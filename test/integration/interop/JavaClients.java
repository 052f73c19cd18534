// The Java client (kafka-clients 4.4.0, unmodified) driven by the interop tests: one JVM launch
// runs a whole scenario and prints its results as JSON lines on stdout, which the test parses.
// Run as a single-file source program: java -cp '<kafka libs>/*' JavaClients.java <scenario> <bootstrap>
// with the scenario's input as JSON on stdin. Keys, values and header values travel as hex.

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.*;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.*;
import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.clients.producer.*;
import org.apache.kafka.common.*;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

public class JavaClients {
  static final ObjectMapper JSON = new ObjectMapper();
  static final HexFormat HEX = HexFormat.of();
  static String bootstrap;

  public static void main(String[] args) throws Exception {
    bootstrap = args[1];
    JsonNode input = JSON.readTree(System.in);
    switch (args[0]) {
      case "roundtrip" -> roundtrip(input);
      case "produce" -> produce(input.get("topic").asText(), input.get("codec").asText(), input.get("records"));
      case "consume" -> consume(input.get("topic").asText(), input.get("partitions").asInt());
      case "admin" -> admin(input.get("topic").asText());
      case "clusterAdmin" -> clusterAdmin(input.get("topic").asText());
      case "stream" -> stream(input.get("topic").asText(), input.get("partitions").asInt(), input.get("count").asInt(), input.get("intervalMs").asInt(),
          (short) (input.has("replicationFactor") ? input.get("replicationFactor").asInt() : 1));
      case "faultClient" -> faultClient(input);
      default -> throw new IllegalArgumentException("unknown scenario " + args[0]);
    }
    System.out.flush();
  }

  static void emit(String type, Object... fields) throws Exception {
    ObjectNode n = JSON.createObjectNode();
    n.put("type", type);
    for (int i = 0; i < fields.length; i += 2) n.set((String) fields[i], JSON.valueToTree(fields[i + 1]));
    System.out.println(JSON.writeValueAsString(n));
  }

  static byte[] bytes(JsonNode n) {
    return n == null || n.isNull() ? null : HEX.parseHex(n.asText());
  }

  static String hex(byte[] b) {
    return b == null ? null : HEX.formatHex(b);
  }

  /** Every client's settings: the bootstrap, and those of the file named by -Dclient.config (security.protocol, ssl.*). */
  static Properties common() {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    String extra = System.getProperty("client.config");
    if (extra != null) {
      try (java.io.FileReader r = new java.io.FileReader(extra)) {
        p.load(r);
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
    return p;
  }

  /** For each codec: create a topic, produce every record idempotently, read it all back, query offsets by time. */
  static void roundtrip(JsonNode input) throws Exception {
    int partitions = input.get("partitions").asInt();
    try (Admin admin = Admin.create(common())) {
      List<NewTopic> topics = new ArrayList<>();
      for (JsonNode codec : input.get("codecs")) topics.add(new NewTopic(input.get("topic").asText() + "-" + codec.asText(), partitions, (short) 1));
      admin.createTopics(topics).all().get();
    }
    for (JsonNode codec : input.get("codecs")) {
      String topic = input.get("topic").asText() + "-" + codec.asText();
      produce(topic, codec.asText(), input.get("records"));
      consume(topic, partitions);
      offsetsForTimes(topic, input.get("queries"));
    }
  }

  /** The idempotent producer as configured by default (acks=all, retries, up to 5 in flight), batching several records per request. */
  static void produce(String topic, String codec, JsonNode records) throws Exception {
    Properties p = common();
    p.put("key.serializer", ByteArraySerializer.class.getName());
    p.put("value.serializer", ByteArraySerializer.class.getName());
    p.put("compression.type", codec);
    p.put("enable.idempotence", "true");
    p.put("acks", "all");
    p.put("linger.ms", "5");
    p.put("delivery.timeout.ms", "60000");
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
      List<Future<RecordMetadata>> sent = new ArrayList<>();
      for (JsonNode r : records) {
        List<Header> headers = new ArrayList<>();
        for (JsonNode h : r.get("headers")) headers.add(new RecordHeader(h.get(0).asText(), bytes(h.get(1))));
        sent.add(producer.send(new ProducerRecord<>(topic, r.get("partition").asInt(), r.get("timestamp").asLong(), bytes(r.get("key")), bytes(r.get("value")), headers)));
      }
      producer.flush();
      for (Future<RecordMetadata> f : sent) {
        RecordMetadata m = f.get();
        emit("sent", "topic", topic, "partition", m.partition(), "offset", m.offset(), "timestamp", m.timestamp());
      }
    }
  }

  /**
   * Sends `count` records ("v<i>" to partition i % partitions), one every `intervalMs`, with the
   * idempotent producer, while the test crashes and restarts the broker: requests fail or time
   * out and are retried. Prints each acknowledgement as it arrives, with its wall-clock time.
   */
  static void stream(String topic, int partitions, int count, int intervalMs, short replicationFactor) throws Exception {
    try (Admin admin = Admin.create(common())) {
      admin.createTopics(List.of(new NewTopic(topic, partitions, replicationFactor).configs(replicationFactor > 1 ? Map.of("min.insync.replicas", "2") : Map.of()))).all().get();
    }
    Properties p = common();
    p.put("key.serializer", ByteArraySerializer.class.getName());
    p.put("value.serializer", ByteArraySerializer.class.getName());
    p.put("enable.idempotence", "true");
    p.put("acks", "all");
    p.put("request.timeout.ms", "2000");
    p.put("retry.backoff.ms", "100");
    p.put("reconnect.backoff.max.ms", "200");
    p.put("delivery.timeout.ms", "60000");
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
      for (int i = 0; i < count; i++) {
        final int index = i;
        producer.send(new ProducerRecord<>(topic, i % partitions, ("k" + i).getBytes(), ("v" + i).getBytes()), (m, e) -> {
          try {
            if (e != null) emit("failed", "index", index, "error", e.toString());
            else emit("acked", "index", index, "partition", m.partition(), "offset", m.offset(), "atMs", System.currentTimeMillis());
          } catch (Exception io) {
            throw new RuntimeException(io);
          }
        });
        Thread.sleep(intervalMs);
      }
      producer.flush();
    }
  }

  static KafkaConsumer<byte[], byte[]> consumer() {
    Properties p = common();
    p.put("key.deserializer", ByteArrayDeserializer.class.getName());
    p.put("value.deserializer", ByteArrayDeserializer.class.getName());
    p.put("enable.auto.commit", "false");
    return new KafkaConsumer<>(p);
  }

  /** assign + seekToBeginning, then poll until every partition's position reaches its end offset. */
  static void consume(String topic, int partitions) throws Exception {
    try (KafkaConsumer<byte[], byte[]> consumer = consumer()) {
      List<TopicPartition> tps = new ArrayList<>();
      for (int i = 0; i < partitions; i++) tps.add(new TopicPartition(topic, i));
      consumer.assign(tps);
      consumer.seekToBeginning(tps);
      Map<TopicPartition, Long> end = consumer.endOffsets(tps);
      long deadline = System.currentTimeMillis() + 30_000;
      while (tps.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
        if (System.currentTimeMillis() > deadline) throw new IllegalStateException("read did not reach the end offsets " + end);
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
          List<List<String>> headers = new ArrayList<>();
          for (Header h : r.headers()) headers.add(Arrays.asList(h.key(), hex(h.value())));
          emit("record", "topic", topic, "partition", r.partition(), "offset", r.offset(), "key", hex(r.key()), "value", hex(r.value()),
              "headers", headers, "timestamp", r.timestamp(), "timestampType", r.timestampType().name);
        }
      }
      emit("end", "topic", topic, "offsets", end.entrySet().stream().sorted(Comparator.comparingInt(e -> e.getKey().partition())).map(Map.Entry::getValue).toList());
    }
  }

  static void offsetsForTimes(String topic, JsonNode queries) throws Exception {
    try (KafkaConsumer<byte[], byte[]> consumer = consumer()) {
      // One request per query: several timestamps for one partition cannot share a map.
      for (JsonNode q : queries) {
        TopicPartition tp = new TopicPartition(topic, q.get("partition").asInt());
        OffsetAndTimestamp found = consumer.offsetsForTimes(Map.of(tp, q.get("timestamp").asLong())).get(tp);
        emit("offsetForTime", "topic", topic, "partition", tp.partition(), "timestamp", q.get("timestamp").asLong(),
            "offset", found == null ? null : found.offset(), "foundTimestamp", found == null ? null : found.timestamp());
      }
    }
  }

  /** Every admin operation the broker serves, each result printed for the test to check. */
  static void admin(String topic) throws Exception {
    try (Admin admin = Admin.create(common())) {
      admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1).configs(Map.of("retention.ms", "3600000")))).all().get();
      emit("created", "topic", topic);
      try {
        admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all().get();
        emit("duplicateCreate", "error", null);
      } catch (Exception e) {
        emit("duplicateCreate", "error", e.getCause().getClass().getSimpleName());
      }
      describeTopic(admin, topic);

      ConfigResource res = new ConfigResource(ConfigResource.Type.TOPIC, topic);
      admin.incrementalAlterConfigs(Map.of(res, List.of(
          new AlterConfigOp(new ConfigEntry("cleanup.policy", "compact,delete"), AlterConfigOp.OpType.SET),
          new AlterConfigOp(new ConfigEntry("retention.ms", null), AlterConfigOp.OpType.DELETE)))).all().get();
      Config config = admin.describeConfigs(List.of(res)).all().get().get(res);
      for (String name : List.of("cleanup.policy", "retention.ms", "max.message.bytes")) {
        ConfigEntry e = config.get(name);
        emit("config", "name", name, "value", e.value(), "source", e.source().name(), "isDefault", e.isDefault());
      }

      admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(4))).all().get();
      describeTopic(admin, topic);

      Properties p = common();
      p.put("key.serializer", ByteArraySerializer.class.getName());
      p.put("value.serializer", ByteArraySerializer.class.getName());
      try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
        for (int i = 0; i < 10; i++) producer.send(new ProducerRecord<>(topic, 3, ("k" + i).getBytes(), ("v" + i).getBytes())).get();
      }
      TopicPartition tp = new TopicPartition(topic, 3);
      DeletedRecords deleted = admin.deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(6))).lowWatermarks().get(tp).get();
      emit("deleteRecords", "lowWatermark", deleted.lowWatermark());
      ListOffsetsResult.ListOffsetsResultInfo earliest = admin.listOffsets(Map.of(tp, OffsetSpec.earliest())).all().get().get(tp);
      ListOffsetsResult.ListOffsetsResultInfo latest = admin.listOffsets(Map.of(tp, OffsetSpec.latest())).all().get().get(tp);
      emit("listOffsets", "earliest", earliest.offset(), "latest", latest.offset());

      DescribeClusterResult cluster = admin.describeCluster();
      emit("cluster", "clusterId", cluster.clusterId().get(), "controller", cluster.controller().get().id(),
          "nodes", cluster.nodes().get().stream().map(n -> n.host() + ":" + n.port()).toList());

      admin.deleteTopics(List.of(topic)).all().get();
      emit("deleted", "topic", topic, "stillListed", admin.listTopics().names().get().contains(topic));
    }
  }

  /** Admin against a replicated cluster: RF=3 creation, leaders/replicas/ISR, growth, configs, the cluster's nodes, deletion. */
  static void clusterAdmin(String topic) throws Exception {
    try (Admin admin = Admin.create(common())) {
      admin.createTopics(List.of(new NewTopic(topic, 2, (short) 3))).all().get();
      describeReplicas(admin, topic);
      admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(4))).all().get();
      describeReplicas(admin, topic);
      ConfigResource res = new ConfigResource(ConfigResource.Type.TOPIC, topic);
      admin.incrementalAlterConfigs(Map.of(res, List.of(new AlterConfigOp(new ConfigEntry("retention.ms", "7200000"), AlterConfigOp.OpType.SET)))).all().get();
      ConfigEntry retention = admin.describeConfigs(List.of(res)).all().get().get(res).get("retention.ms");
      emit("config", "value", retention.value(), "source", retention.source().name());
      DescribeClusterResult cluster = admin.describeCluster();
      emit("cluster", "controller", cluster.controller().get().id(), "nodes", cluster.nodes().get().stream().map(n -> n.id()).sorted().toList());

      TopicPartition tp0 = new TopicPartition(topic, 0);
      List<Integer> current = replicasOf(admin, topic, 0);
      List<Integer> target = List.of(current.get(1), current.get(0));
      admin.alterPartitionReassignments(Map.of(tp0, Optional.of(new NewPartitionReassignment(target)))).all().get();
      long deadline = System.currentTimeMillis() + 30_000;
      while (admin.listPartitionReassignments().reassignments().get().containsKey(tp0) || !replicasOf(admin, topic, 0).equals(target)) {
        if (System.currentTimeMillis() > deadline) throw new IllegalStateException("the reassignment did not complete: " + replicasOf(admin, topic, 0));
        Thread.sleep(200);
      }
      emit("reassigned", "replicas", replicasOf(admin, topic, 0));
      Optional<Throwable> election = admin.electLeaders(ElectionType.PREFERRED, Set.of(tp0)).partitions().get().get(tp0);
      emit("elected", "error", election.map(e -> e.getClass().getSimpleName()).orElse(null));
      while (admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().get(0).leader().id() != target.get(0)) {
        if (System.currentTimeMillis() > deadline) throw new IllegalStateException("the preferred replica did not become leader");
        Thread.sleep(200);
      }
      emit("leader", "id", target.get(0));

      admin.deleteTopics(List.of(topic)).all().get();
      emit("deleted", "stillListed", admin.listTopics().names().get().contains(topic));
    }
  }

  static List<Integer> replicasOf(Admin admin, String topic, int partition) throws Exception {
    return admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().get(partition).replicas().stream().map(n -> n.id()).toList();
  }

  static void describeReplicas(Admin admin, String topic) throws Exception {
    TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
    emit("replicas", "partitions", d.partitions().stream().map(tpi -> List.of(tpi.partition(), tpi.leader().id(),
        tpi.replicas().stream().map(n -> n.id()).toList(), tpi.isr().stream().map(n -> n.id()).sorted().toList())).toList());
  }

  static void describeTopic(Admin admin, String topic) throws Exception {
    TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
    emit("described", "topic", d.name(), "topicId", d.topicId().toString(), "internal", d.isInternal(),
        "partitions", d.partitions().stream().map(tpi -> List.of(tpi.partition(), tpi.leader().id(), tpi.replicas().size(), tpi.isr().size())).toList());
  }

  /**
   * The fault suite's Java workload (tools/fault), running until SIGTERM: an idempotent acks=all
   * producer sends "<writer>-<seq>" to partition seq % partitions every `intervalMs`, and a
   * consumer in `group` reads from the beginning and commits after each poll. Every send, its
   * outcome (acked with its offset, failed, or unknown when it timed out: the broker may still
   * have it), every consumed record and every commit is printed as it happens, so the history
   * survives whatever the brokers do. On SIGTERM both stop, the producer waits for what is in
   * flight, and the group's committed offsets are fetched once more.
   */
  static void faultClient(JsonNode input) throws Exception {
    String topic = input.get("topic").asText();
    int partitions = input.get("partitions").asInt();
    String writer = input.get("writer").asText();
    String group = input.get("group").asText();
    int intervalMs = input.get("intervalMs").asInt();
    AtomicBoolean stopping = new AtomicBoolean(false);
    CountDownLatch done = new CountDownLatch(2);
    Thread producing = new Thread(() -> faultProducer(topic, partitions, writer, intervalMs, stopping, done), "fault-producer");
    Thread consuming = new Thread(() -> faultConsumer(topic, partitions, group, stopping, done), "fault-consumer");
    Thread main = Thread.currentThread();
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      stopping.set(true);
      try {
        main.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }));
    producing.start();
    consuming.start();
    emit("started", "writer", writer, "group", group);
    done.await();
    emit("stopped", "writer", writer);
    System.out.flush();
  }

  static void faultProducer(String topic, int partitions, String writer, int intervalMs, AtomicBoolean stopping, CountDownLatch done) {
    Properties p = common();
    p.put("key.serializer", ByteArraySerializer.class.getName());
    p.put("value.serializer", ByteArraySerializer.class.getName());
    p.put("enable.idempotence", "true");
    p.put("acks", "all");
    p.put("request.timeout.ms", "3000");
    p.put("retry.backoff.ms", "100");
    p.put("reconnect.backoff.max.ms", "500");
    p.put("delivery.timeout.ms", "60000");
    p.put("max.block.ms", "10000");
    p.put("linger.ms", "0");
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
      for (long seq = 0; !stopping.get(); seq++) {
        String value = writer + "-" + seq;
        int partition = (int) (seq % partitions);
        emit("send", "value", value, "partition", partition, "atMs", System.currentTimeMillis());
        try {
          producer.send(new ProducerRecord<>(topic, partition, null, value.getBytes()), (m, e) -> {
            try {
              if (e == null) emit("acked", "value", value, "partition", m.partition(), "offset", m.offset(), "atMs", System.currentTimeMillis());
              else emit(e instanceof org.apache.kafka.common.errors.TimeoutException ? "unknown" : "failed", "value", value, "error", e.toString(), "atMs", System.currentTimeMillis());
            } catch (Exception io) {
              throw new RuntimeException(io);
            }
          });
        } catch (KafkaException e) {
          // send() itself refused (metadata unavailable within max.block.ms): nothing was sent.
          emit("failed", "value", value, "error", e.toString(), "atMs", System.currentTimeMillis());
        }
        Thread.sleep(intervalMs);
      }
      producer.flush();
    } catch (Exception e) {
      emitQuietly("producerError", "error", e.toString());
    } finally {
      done.countDown();
    }
  }

  static void faultConsumer(String topic, int partitions, String group, AtomicBoolean stopping, CountDownLatch done) {
    Properties p = common();
    p.put("key.deserializer", ByteArrayDeserializer.class.getName());
    p.put("value.deserializer", ByteArrayDeserializer.class.getName());
    p.put("group.id", group);
    p.put("enable.auto.commit", "false");
    p.put("auto.offset.reset", "earliest");
    p.put("session.timeout.ms", "10000");
    p.put("heartbeat.interval.ms", "1000");
    p.put("request.timeout.ms", "5000");
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
      consumer.subscribe(List.of(topic));
      while (!stopping.get()) {
        Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();
        try {
          for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
            emit("consumed", "partition", r.partition(), "offset", r.offset(), "value", new String(r.value()));
            next.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
          }
          if (next.isEmpty()) continue;
          consumer.commitSync(next, Duration.ofSeconds(5));
          long at = System.currentTimeMillis();
          for (Map.Entry<TopicPartition, OffsetAndMetadata> e : next.entrySet()) {
            emit("commit", "group", group, "partition", e.getKey().partition(), "offset", e.getValue().offset(), "atMs", at);
          }
        } catch (KafkaException e) {
          // A commit or poll that fails during a fault is retried by the next round.
          emit("commitFailed", "group", group, "error", e.toString());
        }
      }
      Set<TopicPartition> all = new HashSet<>();
      for (int i = 0; i < partitions; i++) all.add(new TopicPartition(topic, i));
      for (Map.Entry<TopicPartition, OffsetAndMetadata> e : consumer.committed(all, Duration.ofSeconds(30)).entrySet()) {
        if (e.getValue() != null) emit("fetchedOffset", "group", group, "partition", e.getKey().partition(), "offset", e.getValue().offset());
      }
    } catch (Exception e) {
      emitQuietly("consumerError", "error", e.toString());
    } finally {
      done.countDown();
    }
  }

  static void emitQuietly(String type, Object... fields) {
    try {
      emit(type, fields);
    } catch (Exception e) {
      e.printStackTrace();
    }
  }
}
