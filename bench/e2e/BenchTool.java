// Load generator helpers for bench/e2e that ProducerPerformance does not cover. One file so the
// runner compiles it once with javac against Kafka's jars; every command prints one JSON line.
//   create   BOOTSTRAP TOPIC PARTITIONS SEGMENT_BYTES [KEY=VALUE ...]
//                                                      create a topic (extra topic configs), wait until every partition has a leader
//   delete   BOOTSTRAP TOPIC
//   consume  BOOTSTRAP TOPIC                            assign() every partition, read from the beginning to the end offsets
//   latency  BOOTSTRAP TOPIC RATE SIZE SECONDS WARMUP   fixed-rate producer + assign() consumer, send time in the record
//   txnProduce BOOTSTRAP TOPIC RECORDS SIZE PER_TXN_RECORDS PER_TXN_MS ABORT_EVERY
//                                                      transactional producer: a transaction ends after PER_TXN_RECORDS
//                                                      records or PER_TXN_MS ms (0: no limit), every ABORT_EVERY-th aborts (0: none)
//   consumeAt BOOTSTRAP TOPIC ISOLATION                 assign() every partition, read at read_committed or read_uncommitted
//                                                      until each position reaches its end offset (markers and aborted records count no record)
//   loopback SECONDS                                    one TCP stream over 127.0.0.1, 1 MiB writes
//   shareConsume BOOTSTRAP TOPIC GROUP CONSUMERS RECORDS
//                                                      CONSUMERS KafkaShareConsumers (one thread each, implicit acknowledgement:
//                                                      every record ACCEPTed) in share group GROUP (share.auto.offset.reset=earliest)
//                                                      until RECORDS records were delivered and every consumer closed (acknowledged)
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

public class BenchTool {
  public static void main(String[] args) throws Exception {
    switch (args[0]) {
      case "create" -> create(args[1], args[2], Integer.parseInt(args[3]), args[4], Arrays.copyOfRange(args, 5, args.length));
      case "delete" -> delete(args[1], args[2]);
      case "consume" -> consume(args[1], args[2]);
      case "latency" -> latency(args[1], args[2], Integer.parseInt(args[3]), Integer.parseInt(args[4]),
          Integer.parseInt(args[5]), Integer.parseInt(args[6]));
      case "loopback" -> loopback(Integer.parseInt(args[1]));
      case "txnProduce" -> txnProduce(args[1], args[2], Long.parseLong(args[3]), Integer.parseInt(args[4]), Long.parseLong(args[5]),
          Long.parseLong(args[6]), Integer.parseInt(args[7]));
      case "consumeAt" -> consumeAt(args[1], args[2], args[3]);
      case "shareConsume" -> shareConsume(args[1], args[2], args[3], Integer.parseInt(args[4]), Long.parseLong(args[5]));
      default -> throw new IllegalArgumentException("unknown command " + args[0]);
    }
  }

  private static Admin admin(String bootstrap) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("request.timeout.ms", "120000");
    p.put("default.api.timeout.ms", "300000");
    return Admin.create(p);
  }

  private static void create(String bootstrap, String topic, int partitions, String segmentBytes, String[] extraConfigs) throws Exception {
    long start = System.nanoTime();
    Map<String, String> configs = new HashMap<>();
    configs.put("segment.bytes", segmentBytes);
    for (String kv : extraConfigs) {
      int eq = kv.indexOf('=');
      if (eq <= 0) throw new IllegalArgumentException("topic config is not KEY=VALUE: " + kv);
      configs.put(kv.substring(0, eq), kv.substring(eq + 1));
    }
    try (Admin admin = admin(bootstrap)) {
      NewTopic t = new NewTopic(topic, partitions, (short) 1).configs(configs);
      admin.createTopics(List.of(t)).all().get(300, TimeUnit.SECONDS);
      // Kafka answers CreateTopics before every partition has a leader; a producer started then
      // would spend the first seconds on metadata retries and skew the measurement.
      for (;;) {
        try {
          TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
          if (d != null && d.partitions().size() == partitions && d.partitions().stream().allMatch(p -> p.leader() != null)) break;
        } catch (ExecutionException e) {
          // Kafka's metadata cache may not know the new topic yet (seen after deleting 4,096 partitions).
          if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) throw e;
        }
        Thread.sleep(100);
      }
    }
    System.out.printf("{\"createSeconds\":%.3f}%n", (System.nanoTime() - start) / 1e9);
  }

  private static void delete(String bootstrap, String topic) throws Exception {
    try (Admin admin = admin(bootstrap)) {
      admin.deleteTopics(List.of(topic)).all().get(300, TimeUnit.SECONDS);
    }
    System.out.println("{}");
  }

  private static Properties consumerProps(String bootstrap) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("key.deserializer", ByteArrayDeserializer.class.getName());
    p.put("value.deserializer", ByteArrayDeserializer.class.getName());
    p.put("enable.auto.commit", "false");
    // No group: consumer groups are not implemented in Sluice, and assign() needs none.
    p.put("auto.offset.reset", "earliest");
    // -Dclient.config=FILE adds settings such as security.protocol and ssl.* (bench:tls).
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

  private static List<TopicPartition> partitionsOf(KafkaConsumer<byte[], byte[]> consumer, String topic) {
    List<TopicPartition> out = new ArrayList<>();
    for (PartitionInfo info : consumer.partitionsFor(topic, Duration.ofSeconds(60))) out.add(new TopicPartition(topic, info.partition()));
    return out;
  }

  private static void consume(String bootstrap, String topic) {
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerProps(bootstrap))) {
      List<TopicPartition> parts = partitionsOf(consumer, topic);
      consumer.assign(parts);
      consumer.seekToBeginning(parts);
      Map<TopicPartition, Long> end = consumer.endOffsets(parts);
      long target = 0;
      for (TopicPartition tp : parts) target += end.get(tp) - consumer.position(tp);
      long records = 0, bytes = 0;
      long start = System.nanoTime();
      while (records < target) {
        ConsumerRecords<byte[], byte[]> batch = consumer.poll(Duration.ofSeconds(10));
        if (batch.isEmpty() && System.nanoTime() - start > 300_000_000_000L) throw new IllegalStateException("consume timed out");
        for (ConsumerRecord<byte[], byte[]> r : batch) {
          records++;
          bytes += r.serializedValueSize() + Math.max(0, r.serializedKeySize());
        }
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      System.out.printf("{\"records\":%d,\"bytes\":%d,\"seconds\":%.3f}%n", records, bytes, seconds);
    }
  }

  private static void txnProduce(String bootstrap, String topic, long records, int size, long perTxnRecords, long perTxnMs, int abortEvery) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("key.serializer", ByteArraySerializer.class.getName());
    p.put("value.serializer", ByteArraySerializer.class.getName());
    p.put("transactional.id", "bench-" + topic);
    p.put("linger.ms", "5");
    p.put("batch.size", "262144");
    byte[] value = new byte[size];
    long transactions = 0, aborted = 0;
    long start = System.nanoTime();
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
      producer.initTransactions();
      long sent = 0;
      while (sent < records) {
        producer.beginTransaction();
        long txnStart = System.nanoTime();
        long inTxn = 0;
        while (sent < records && (perTxnRecords <= 0 || inTxn < perTxnRecords) && (perTxnMs <= 0 || System.nanoTime() - txnStart < perTxnMs * 1_000_000L)) {
          producer.send(new ProducerRecord<>(topic, value));
          sent++;
          inTxn++;
        }
        transactions++;
        if (abortEvery > 0 && transactions % abortEvery == 0) {
          producer.abortTransaction();
          aborted++;
        } else {
          producer.commitTransaction();
        }
      }
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    System.out.printf("{\"records\":%d,\"bytes\":%d,\"seconds\":%.3f,\"transactions\":%d,\"aborted\":%d}%n", records, records * size, seconds, transactions, aborted);
  }

  private static void consumeAt(String bootstrap, String topic, String isolation) {
    Properties props = consumerProps(bootstrap);
    props.put("isolation.level", isolation);
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
      List<TopicPartition> parts = partitionsOf(consumer, topic);
      consumer.assign(parts);
      consumer.seekToBeginning(parts);
      Map<TopicPartition, Long> end = consumer.endOffsets(parts);
      long records = 0, bytes = 0;
      long start = System.nanoTime();
      while (parts.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
        if (System.nanoTime() - start > 300_000_000_000L) throw new IllegalStateException("consume timed out");
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofSeconds(1))) {
          records++;
          bytes += r.serializedValueSize() + Math.max(0, r.serializedKeySize());
        }
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      System.out.printf("{\"records\":%d,\"bytes\":%d,\"seconds\":%.3f}%n", records, bytes, seconds);
    }
  }

  /**
   * A share group's consumers take RECORDS records between them. Implicit acknowledgement accepts
   * each poll's records with the next poll, and close() accepts the last ones, so the clock stops
   * once every consumer has closed: then every record is ACCEPTed on the broker. Consumers start
   * before the clock; the group's assignment settles while the first fetches run, as in production.
   */
  private static void shareConsume(String bootstrap, String topic, String group, int consumers, long target) throws Exception {
    try (Admin admin = admin(bootstrap)) {
      AlterConfigOp earliest = new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET);
      admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, group), List.of(earliest))).all().get(60, TimeUnit.SECONDS);
    }
    AtomicLong records = new AtomicLong();
    AtomicLong bytes = new AtomicLong();
    AtomicBoolean failed = new AtomicBoolean(false);
    long start = System.nanoTime();
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < consumers; i++) {
      Properties p = new Properties();
      p.put("bootstrap.servers", bootstrap);
      p.put("group.id", group);
      p.put("client.id", group + "-" + i);
      p.put("share.acknowledgement.mode", "implicit");
      p.put("key.deserializer", ByteArrayDeserializer.class.getName());
      p.put("value.deserializer", ByteArrayDeserializer.class.getName());
      Thread t = new Thread(() -> {
        try (KafkaShareConsumer<byte[], byte[]> consumer = new KafkaShareConsumer<>(p)) {
          consumer.subscribe(List.of(topic));
          while (records.get() < target) {
            if (System.nanoTime() - start > 600_000_000_000L) throw new IllegalStateException("share consume timed out at " + records.get() + " records");
            long n = 0, b = 0;
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
              n++;
              b += r.serializedValueSize() + Math.max(0, r.serializedKeySize());
            }
            records.addAndGet(n);
            bytes.addAndGet(b);
          }
        } catch (RuntimeException e) {
          failed.set(true);
          records.set(Long.MAX_VALUE);
          e.printStackTrace();
        }
      });
      t.start();
      threads.add(t);
    }
    for (Thread t : threads) t.join();
    if (failed.get()) throw new IllegalStateException("a share consumer failed");
    double seconds = (System.nanoTime() - start) / 1e9;
    System.out.printf("{\"records\":%d,\"bytes\":%d,\"seconds\":%.3f}%n", records.get(), bytes.get(), seconds);
  }

  /**
   * OpenMessaging-style end-to-end latency: the producer sends at a fixed rate and writes the
   * intended send time (System.nanoTime, CLOCK_MONOTONIC, same clock in both threads) into each
   * record; the consumer subtracts it on receipt. Using the intended rather than the actual send
   * time keeps a stalled producer from hiding latency (coordinated omission).
   */
  private static void latency(String bootstrap, String topic, int rate, int size, int seconds, int warmup) throws Exception {
    Properties pp = new Properties();
    pp.put("bootstrap.servers", bootstrap);
    pp.put("key.serializer", ByteArraySerializer.class.getName());
    pp.put("value.serializer", ByteArraySerializer.class.getName());
    pp.put("acks", "all");
    pp.put("linger.ms", "1");
    pp.put("batch.size", "131072");
    Histogram hist = new Histogram(TimeUnit.SECONDS.toMicros(60), 3);
    AtomicBoolean done = new AtomicBoolean(false);
    AtomicLong received = new AtomicLong();
    long measureFrom = System.nanoTime() + TimeUnit.SECONDS.toNanos(warmup + 2);
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerProps(bootstrap));
         KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(pp)) {
      List<TopicPartition> parts = partitionsOf(consumer, topic);
      consumer.assign(parts);
      consumer.seekToEnd(parts);
      for (TopicPartition tp : parts) consumer.position(tp);
      Thread reader = new Thread(() -> {
        while (!done.get()) {
          for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
            long sent = ByteBuffer.wrap(r.value()).getLong();
            long now = System.nanoTime();
            received.incrementAndGet();
            if (sent >= measureFrom) hist.recordValue(Math.max(0, (now - sent) / 1000));
          }
        }
      });
      reader.start();
      producer.partitionsFor(topic);
      long start = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
      long total = (long) rate * (seconds + warmup);
      long sent = 0;
      byte[] payload = new byte[size];
      for (; sent < total; sent++) {
        long due = start + sent * 1_000_000_000L / rate;
        long wait = due - System.nanoTime();
        if (wait > 0) TimeUnit.NANOSECONDS.sleep(wait);
        byte[] value = payload.clone();
        ByteBuffer.wrap(value).putLong(due);
        producer.send(new ProducerRecord<>(topic, value));
      }
      producer.flush();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (received.get() < total && System.nanoTime() < deadline) Thread.sleep(50);
      done.set(true);
      reader.join();
      double elapsed = (System.nanoTime() - start) / 1e9;
      System.out.printf("{\"sent\":%d,\"received\":%d,\"measured\":%d,\"seconds\":%.3f,\"p50Ms\":%.3f,\"p99Ms\":%.3f,\"p999Ms\":%.3f,\"maxMs\":%.3f}%n",
          total, received.get(), hist.getTotalCount(), elapsed,
          hist.getValueAtPercentile(50) / 1000.0, hist.getValueAtPercentile(99) / 1000.0,
          hist.getValueAtPercentile(99.9) / 1000.0, hist.getMaxValue() / 1000.0);
    }
  }

  private static void loopback(int seconds) throws Exception {
    try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      AtomicLong read = new AtomicLong();
      Thread receiver = new Thread(() -> {
        try (Socket s = server.accept(); InputStream in = s.getInputStream()) {
          byte[] buf = new byte[1 << 20];
          for (int n; (n = in.read(buf)) > 0; ) read.addAndGet(n);
        } catch (Exception e) {
          throw new RuntimeException(e);
        }
      });
      receiver.start();
      byte[] chunk = new byte[1 << 20];
      long start = System.nanoTime();
      long end = start + TimeUnit.SECONDS.toNanos(seconds);
      try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort()); OutputStream out = s.getOutputStream()) {
        while (System.nanoTime() < end) out.write(chunk);
      }
      receiver.join();
      double elapsed = (System.nanoTime() - start) / 1e9;
      System.out.printf("{\"bytes\":%d,\"seconds\":%.3f}%n", read.get(), elapsed);
    }
  }
}
