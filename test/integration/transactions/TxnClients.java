// The Java client (kafka-clients 4.4.0, unmodified; transaction version 2 against a broker that
// finalizes it) in transactions, driven by the transactions tests. Single-file source program:
//   java -cp '<kafka libs>/*' TxnClients.java <scenario> <bootstrap> [args...]
// Prints what happened as JSON lines on stdout; the tests judge them.

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.*;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.clients.producer.*;
import org.apache.kafka.common.*;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

public class TxnClients {
  static final ObjectMapper JSON = new ObjectMapper();
  static String bootstrap;

  public static void main(String[] args) throws Exception {
    bootstrap = args[1];
    switch (args[0]) {
      case "commit-abort" -> commitAbort(args[2], args[3], Integer.parseInt(args[4]));
      case "fence" -> fence(args[2], args[3]);
      case "timeout" -> timeout(args[2], args[3]);
      case "produce" -> produce(args[2], Integer.parseInt(args[3]));
      case "consume" -> consume(args[2], args[3]);
      case "workload" -> workload(args[2], Integer.parseInt(args[3]), Integer.parseInt(args[4]), Integer.parseInt(args[5]));
      case "rpw" -> readProcessWrite(args[2], args[3], args[4], args[5], Integer.parseInt(args[6]), Long.parseLong(args[7]));
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

  static Properties producerProps(String transactionalId) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("key.serializer", StringSerializer.class.getName());
    p.put("value.serializer", StringSerializer.class.getName());
    p.put("linger.ms", "5");
    if (transactionalId != null) p.put("transactional.id", transactionalId);
    return p;
  }

  static Properties consumerProps(String group, String isolation) {
    Properties c = new Properties();
    c.put("bootstrap.servers", bootstrap);
    c.put("key.deserializer", StringDeserializer.class.getName());
    c.put("value.deserializer", StringDeserializer.class.getName());
    c.put("isolation.level", isolation);
    c.put("auto.offset.reset", "earliest");
    c.put("enable.auto.commit", "false");
    if (group != null) c.put("group.id", group);
    return c;
  }

  static void send(Producer<String, String> producer, String topic, String prefix, int count) {
    for (int i = 0; i < count; i++) producer.send(new ProducerRecord<>(topic, prefix + "-" + i, prefix + "-" + i));
  }

  /** Transaction c1 commits, a2 aborts, c3 commits: `count` records each, spread over the topic's partitions by key. */
  static void commitAbort(String topic, String transactionalId, int count) {
    try (Producer<String, String> producer = new KafkaProducer<>(producerProps(transactionalId))) {
      producer.initTransactions();
      for (String tag : List.of("c1", "a2", "c3")) {
        producer.beginTransaction();
        send(producer, topic, tag, count);
        producer.flush();
        if (tag.startsWith("a")) producer.abortTransaction();
        else producer.commitTransaction();
        emit("ended", "tag", tag);
      }
    }
  }

  /** A second producer with the same transactional id fences the first, whose open transaction is aborted. */
  static void fence(String topic, String transactionalId) {
    Producer<String, String> first = new KafkaProducer<>(producerProps(transactionalId));
    first.initTransactions();
    first.beginTransaction();
    send(first, topic, "zombie", 5);
    first.flush();
    try (Producer<String, String> second = new KafkaProducer<>(producerProps(transactionalId))) {
      second.initTransactions();
      emit("second-initialized");
      try {
        send(first, topic, "zombie-late", 5);
        first.commitTransaction();
        emit("first-committed");
      } catch (KafkaException e) {
        emit("first-failed", "error", e.getClass().getSimpleName());
      } finally {
        first.close(Duration.ofSeconds(5));
      }
      second.beginTransaction();
      send(second, topic, "second", 5);
      second.commitTransaction();
      emit("second-committed");
    }
  }

  /** A transaction left open past its timeout is aborted by the coordinator: its commit fails, a new producer goes on. */
  static void timeout(String topic, String transactionalId) throws InterruptedException {
    Properties props = producerProps(transactionalId);
    props.put("transaction.timeout.ms", "2000");
    try (Producer<String, String> producer = new KafkaProducer<>(props)) {
      producer.initTransactions();
      producer.beginTransaction();
      send(producer, topic, "expired", 5);
      producer.flush();
      Thread.sleep(6000);
      try {
        producer.commitTransaction();
        emit("committed");
      } catch (KafkaException e) {
        emit("commit-failed", "error", e.getClass().getSimpleName());
      }
    }
    try (Producer<String, String> producer = new KafkaProducer<>(producerProps(transactionalId))) {
      producer.initTransactions();
      producer.beginTransaction();
      send(producer, topic, "after", 5);
      producer.commitTransaction();
      emit("after-committed");
    }
  }

  /** `count` records "v-<i>" from an idempotent producer. */
  static void produce(String topic, int count) {
    try (Producer<String, String> producer = new KafkaProducer<>(producerProps(null))) {
      send(producer, topic, "v", count);
      producer.flush();
    }
    emit("produced", "count", count);
  }

  /** Reads every partition of `topic` from the beginning up to its end offsets at `isolation` (the LSO for read_committed). */
  static void consume(String topic, String isolation) {
    try (Consumer<String, String> consumer = new KafkaConsumer<>(consumerProps(null, isolation))) {
      List<TopicPartition> tps = consumer.partitionsFor(topic).stream().map(p -> new TopicPartition(topic, p.partition())).toList();
      consumer.assign(tps);
      consumer.seekToBeginning(tps);
      Map<TopicPartition, Long> end = consumer.endOffsets(tps);
      List<String> values = new ArrayList<>();
      long deadline = System.currentTimeMillis() + 30_000;
      while (tps.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
        if (System.currentTimeMillis() > deadline) throw new IllegalStateException("not at the end offsets " + end + " after 30 s");
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) values.add(r.value());
      }
      emit("consumed", "values", values, "end", end.values().stream().mapToLong(Long::longValue).sum());
    }
  }

  /**
   * Kafka's exactly-once loop: read `in` in group `group` (read_committed), write each value to
   * `out` prefixed "out-", and commit the input offsets in the same transaction, every
   * `batch` records at most. Any error closes the clients and starts over from the committed
   * offsets (the new producer fences the old one and aborts its open transaction). Exits after
   * `idleMs` without a record once it has processed something.
   */
  static void readProcessWrite(String in, String out, String group, String transactionalId, int batch, long idleMs) throws InterruptedException {
    long processed = 0;
    long lastProgress = System.currentTimeMillis();
    while (processed == 0 || System.currentTimeMillis() - lastProgress < idleMs) {
      Properties cp = consumerProps(group, "read_committed");
      cp.put("max.poll.records", String.valueOf(batch));
      try (Consumer<String, String> consumer = new KafkaConsumer<>(cp);
          Producer<String, String> producer = new KafkaProducer<>(producerProps(transactionalId))) {
        producer.initTransactions();
        consumer.subscribe(List.of(in));
        while (processed == 0 || System.currentTimeMillis() - lastProgress < idleMs) {
          ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(500));
          if (records.isEmpty()) continue;
          producer.beginTransaction();
          Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
          for (ConsumerRecord<String, String> r : records) {
            producer.send(new ProducerRecord<>(out, r.partition(), r.key(), "out-" + r.value()));
            offsets.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
          }
          producer.sendOffsetsToTransaction(offsets, consumer.groupMetadata());
          producer.commitTransaction();
          processed += records.count();
          lastProgress = System.currentTimeMillis();
          emit("committed", "processed", processed);
        }
      } catch (KafkaException e) {
        emit("restart", "error", e.getClass().getSimpleName() + ": " + e.getMessage());
        Thread.sleep(500);
      }
    }
    emit("idle", "processed", processed);
  }

  /**
   * A concurrent transactional workload for the anomaly checker: `producers` transactional
   * producers each run `txns` transactions of `records` records ("<producer>-<txn>-<k>", spread
   * over the partitions), a fifth of them aborted at random, and print each transaction's outcome
   * (unknown when neither its commit nor an abort after a failure succeeded). A read_committed
   * consumer reads alongside; at the end it prints what it read per partition, and a fresh
   * read_committed consumer prints the final content of every partition.
   */
  static void workload(String topic, int producers, int txns, int records) throws Exception {
    int partitions;
    try (Consumer<String, String> probe = new KafkaConsumer<>(consumerProps(null, "read_committed"))) {
      partitions = probe.partitionsFor(topic).size();
    }
    AtomicBoolean producing = new AtomicBoolean(true);
    Map<Integer, List<String>> observed = new ConcurrentHashMap<>();
    Thread reader = new Thread(() -> observed.putAll(readCommitted(topic, producing)));
    reader.start();
    List<Thread> writers = new ArrayList<>();
    for (int p = 0; p < producers; p++) {
      final int producer = p;
      Thread w = new Thread(() -> writeTransactions(topic, partitions, producer, txns, records));
      writers.add(w);
      w.start();
    }
    for (Thread w : writers) w.join();
    producing.set(false);
    reader.join();
    emit("observed", "partitions", observed);
    emit("final", "partitions", readCommitted(topic, new AtomicBoolean(false)));
  }

  static void writeTransactions(String topic, int partitions, int producer, int txns, int records) {
    Properties props = producerProps("workload-" + producer);
    props.put("delivery.timeout.ms", "60000");
    Producer<String, String> p = new KafkaProducer<>(props);
    p.initTransactions();
    for (int t = 0; t < txns; t++) {
      List<String> values = new ArrayList<>();
      String outcome;
      try {
        p.beginTransaction();
        for (int k = 0; k < records; k++) {
          String v = producer + "-" + t + "-" + k;
          values.add(v);
          p.send(new ProducerRecord<>(topic, (t * records + k) % partitions, v, v));
        }
        if (ThreadLocalRandom.current().nextInt(5) == 0) {
          p.abortTransaction();
          outcome = "aborted";
        } else {
          p.commitTransaction();
          outcome = "committed";
        }
      } catch (KafkaException e) {
        outcome = "unknown";
        try {
          p.abortTransaction();
          outcome = "aborted";
        } catch (KafkaException | IllegalStateException abortFailed) {
          p.close(Duration.ofSeconds(5));
          p = new KafkaProducer<>(props);
          p.initTransactions();
        }
      }
      emit("txn", "id", producer + "-" + t, "outcome", outcome, "values", values);
    }
    p.close(Duration.ofSeconds(5));
  }

  /** Every partition of `topic` at read_committed, from the beginning, until `producing` is off and each position reached its end offset. */
  static Map<Integer, List<String>> readCommitted(String topic, AtomicBoolean producing) {
    Map<Integer, List<String>> out = new TreeMap<>();
    try (Consumer<String, String> consumer = new KafkaConsumer<>(consumerProps(null, "read_committed"))) {
      List<TopicPartition> tps = consumer.partitionsFor(topic).stream().map(p -> new TopicPartition(topic, p.partition())).toList();
      for (TopicPartition tp : tps) out.put(tp.partition(), new ArrayList<>());
      consumer.assign(tps);
      consumer.seekToBeginning(tps);
      Map<TopicPartition, Long> end = null;
      long deadline = Long.MAX_VALUE;
      for (;;) {
        if (end == null && !producing.get()) {
          end = consumer.endOffsets(tps, Duration.ofSeconds(60));
          deadline = System.currentTimeMillis() + 120_000;
        }
        if (end != null) {
          final Map<TopicPartition, Long> ends = end;
          if (tps.stream().allMatch(tp -> consumer.position(tp) >= ends.get(tp))) break;
          if (System.currentTimeMillis() > deadline) throw new IllegalStateException("not at the end offsets " + end + " after 120 s");
        }
        try {
          for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) out.get(r.partition()).add(r.value());
        } catch (KafkaException e) {
          // A broker killed under the reader: it reconnects on the next poll.
        }
      }
    }
    return out;
  }
}
