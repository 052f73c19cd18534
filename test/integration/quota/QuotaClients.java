// The Java client (kafka-clients 4.4.0, unmodified) under client quotas, driven by the quota
// tests. Single-file source program:
//   java -cp '<kafka libs>/*' QuotaClients.java <scenario> <bootstrap> [args...]
// Prints what happened as JSON lines on stdout; the tests judge them.

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.*;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.*;
import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.clients.producer.*;
import org.apache.kafka.common.*;
import org.apache.kafka.common.quota.*;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

public class QuotaClients {
  static final ObjectMapper JSON = new ObjectMapper();
  static final long MAX_BACKLOG_BYTES = 256 * 1024;
  static String bootstrap;

  public static void main(String[] args) throws Exception {
    bootstrap = args[1];
    switch (args[0]) {
      case "produce" -> produce(args[2], args[3], Long.parseLong(args[4]), Integer.parseInt(args[5]));
      case "consume" -> consume(args[2], args[3], Long.parseLong(args[4]));
      case "admin" -> admin();
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

  static double metric(Map<MetricName, ? extends Metric> metrics, String name) {
    for (Map.Entry<MetricName, ? extends Metric> e : metrics.entrySet()) {
      if (e.getKey().name().equals(name) && e.getKey().tags().size() == 1) return ((Number) e.getValue().metricValue()).doubleValue();
    }
    return Double.NaN;
  }

  /** Sends fixed-size records as fast as the producer takes them for `millis`, then flushes; counts acknowledged value bytes. */
  static void produce(String topic, String clientId, long millis, int recordBytes) throws Exception {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
    p.put(ProducerConfig.ACKS_CONFIG, "1");
    p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, "16384");
    p.put(ProducerConfig.BUFFER_MEMORY_CONFIG, String.valueOf(1 << 20));
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    byte[] value = new byte[recordBytes];
    new Random(1).nextBytes(value);
    AtomicLong acked = new AtomicLong();
    long ackedInRun;
    double throttleMax;
    double throttleAvg;
    long start;
    long end;
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
      // The topic's metadata first, so the run measures producing only.
      producer.partitionsFor(topic);
      start = System.nanoTime();
      long deadline = start + millis * 1_000_000L;
      AtomicLong completed = new AtomicLong();
      long sent = 0;
      while (System.nanoTime() < deadline) {
        // A bounded backlog keeps send() from blocking past the end of the run on a full buffer.
        if (sent - completed.get() >= MAX_BACKLOG_BYTES) {
          Thread.sleep(1);
          continue;
        }
        producer.send(new ProducerRecord<>(topic, value), (md, err) -> {
          if (err == null) acked.addAndGet(recordBytes);
          completed.addAndGet(recordBytes);
        });
        sent += recordBytes;
      }
      // The run ends once what it sent is acknowledged: bytes over the quota are paid for by the
      // throttle of the responses that follow them, so cutting the run short would count bytes
      // whose throttle has not been served yet.
      producer.flush();
      end = System.nanoTime();
      ackedInRun = acked.get();
      throttleAvg = metric(producer.metrics(), "produce-throttle-time-avg");
      throttleMax = metric(producer.metrics(), "produce-throttle-time-max");
    }
    emit("produced", "bytes", ackedInRun, "seconds", (end - start) / 1e9, "throttleAvg", throttleAvg, "throttleMax", throttleMax);
  }

  /** Reads partition 0 of `topic` from the beginning for `millis` after the first record, counting value bytes. */
  static void consume(String topic, String clientId, long millis) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
    p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, "32768");
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    long bytes = 0;
    long start = 0;
    long end;
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
      TopicPartition tp = new TopicPartition(topic, 0);
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      long deadline = Long.MAX_VALUE;
      for (;;) {
        ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(100));
        long now = System.nanoTime();
        if (now >= deadline) break;
        for (ConsumerRecord<byte[], byte[]> r : records) {
          if (start == 0) {
            start = now;
            deadline = start + millis * 1_000_000L;
          }
          bytes += r.value().length;
        }
      }
      end = System.nanoTime();
      emit("consumed", "bytes", bytes, "seconds", (end - start) / 1e9, "throttleAvg", metric(consumer.metrics(), "fetch-throttle-time-avg"),
          "throttleMax", metric(consumer.metrics(), "fetch-throttle-time-max"));
    }
  }

  static ClientQuotaEntity entity(String type, String name) {
    Map<String, String> m = new HashMap<>();
    m.put(type, name.equals("<default>") ? null : name);
    return new ClientQuotaEntity(m);
  }

  /** The AdminClient's quota calls in one JVM: set, describe, a refused value, remove, describe again. */
  static void admin() throws Exception {
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
      alter(admin, "user", "alice", "consumer_byte_rate", 2048.0);
      alter(admin, "client-id", "<default>", "producer_byte_rate", 4096.0);
      describe(admin, ClientQuotaFilterComponent.ofEntity("user", "alice"));
      describe(admin, ClientQuotaFilterComponent.ofDefaultEntity("client-id"));
      alter(admin, "user", "alice", "producer_byte_rate", -5.0);
      alter(admin, "user", "alice", "consumer_byte_rate", null);
      alter(admin, "client-id", "<default>", "producer_byte_rate", null);
      describe(admin, ClientQuotaFilterComponent.ofEntityType("user"));
    }
  }

  /** Sets `key` to `value` (removes it when null) on the entity, and reports the outcome. */
  static void alter(Admin admin, String type, String name, String key, Double value) {
    ClientQuotaAlteration alteration = new ClientQuotaAlteration(entity(type, name), List.of(new ClientQuotaAlteration.Op(key, value)));
    try {
      admin.alterClientQuotas(List.of(alteration)).all().get();
      emit("altered");
    } catch (Exception e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      emit("alter-failed", "error", cause.getClass().getSimpleName(), "message", String.valueOf(cause.getMessage()));
    }
  }

  static void describe(Admin admin, ClientQuotaFilterComponent component) throws Exception {
    Map<ClientQuotaEntity, Map<String, Double>> quotas = admin.describeClientQuotas(ClientQuotaFilter.contains(List.of(component))).entities().get();
    for (Map.Entry<ClientQuotaEntity, Map<String, Double>> e : quotas.entrySet()) {
      Map<String, String> names = new TreeMap<>();
      e.getKey().entries().forEach((k, n) -> names.put(k, n == null ? "<default>" : n));
      emit("quota", "entity", names, "values", new TreeMap<>(e.getValue()));
    }
    emit("described", "count", quotas.size());
  }
}
