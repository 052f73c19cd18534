// `sluice tune --client java`: Kafka's own Java producer (kafka-clients, unmodified) driven for one
// cell of the sweep. Run as a single-file source program:
//   java -cp '<kafka-clients jars>' TuneDriver.java
// It speaks the line protocol of src/tune/driver-protocol.ts: setup and `run` lines on stdin, one
// JSON line per run on stdout. Logging goes to stderr so stdout carries only the protocol.

import java.io.*;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.*;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

public class TuneDriver {
  static PrintStream out;
  static String bootstrap;
  static String topic;
  static final Properties producerProps = new Properties();
  static final Properties consumerProps = new Properties();
  /** How long the end-to-end consumer may take, after the last acknowledgement, to see every record. */
  static final long DRAIN_NANOS = 10_000_000_000L;

  public static void main(String[] args) throws Exception {
    out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
    System.setOut(System.err);
    out.println("{\"type\":\"hello\",\"client\":" + quote("kafka-clients " + clientVersion()) + "}");
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    try {
      for (String line; (line = in.readLine()) != null; ) {
        if (line.isBlank()) continue;
        int space = line.indexOf(' ');
        String verb = space < 0 ? line : line.substring(0, space);
        String rest = space < 0 ? "" : line.substring(space + 1);
        switch (verb) {
          case "bootstrap" -> bootstrap = rest;
          case "topic" -> topic = rest;
          case "producer" -> put(producerProps, rest);
          case "consumer" -> put(consumerProps, rest);
          case "run" -> {
            String[] f = rest.split(" ");
            out.println(run(Long.parseLong(f[0]), Double.parseDouble(f[1]), Double.parseDouble(f[2]), Integer.parseInt(f[3]), f[4].equals("1")));
          }
          default -> throw new IllegalArgumentException("unknown line: " + line);
        }
      }
    } catch (Exception e) {
      out.println("{\"type\":\"error\",\"message\":" + quote(e.toString()) + "}");
      System.exit(1);
    }
  }

  /** From the jar's own version file, which every kafka-clients release carries (the class that reads it moved in 4.0). */
  static String clientVersion() {
    Properties version = new Properties();
    try (InputStream in = KafkaProducer.class.getResourceAsStream("/kafka/kafka-version.properties")) {
      if (in != null) version.load(in);
    } catch (IOException e) {
      return "unknown";
    }
    return version.getProperty("version", "unknown");
  }

  static void put(Properties props, String keyValue) {
    int eq = keyValue.indexOf('=');
    if (eq < 0) throw new IllegalArgumentException("not key=value: " + keyValue);
    props.setProperty(keyValue.substring(0, eq), keyValue.substring(eq + 1));
  }

  static String run(long id, double seconds, double rate, int recordSize, boolean endToEnd) throws Exception {
    Properties props = new Properties();
    props.putAll(producerProps);
    props.setProperty("bootstrap.servers", bootstrap);
    props.setProperty("key.serializer", ByteArraySerializer.class.getName());
    props.setProperty("value.serializer", ByteArraySerializer.class.getName());
    Histogram sendAck = new Histogram();
    AtomicLong acknowledged = new AtomicLong();
    AtomicLong failed = new AtomicLong();
    AtomicLong lastAck = new AtomicLong();
    AtomicReference<String> firstError = new AtomicReference<>();
    byte[] payload = new byte[recordSize];
    for (int i = 0; i < recordSize; i++) payload[i] = (byte) ('A' + ThreadLocalRandom.current().nextInt(26));
    EndToEnd consumer = endToEnd ? new EndToEnd() : null;
    long sent = 0;
    long start;
    Map<String, Double> metrics;
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
      // Metadata first, as a long-running producer has it: the first send must not wait for it.
      producer.partitionsFor(topic);
      if (consumer != null) consumer.start();
      start = System.nanoTime();
      long end = start + (long) (seconds * 1e9);
      for (; ; sent++) {
        long now = System.nanoTime();
        long intended;
        if (rate > 0) {
          intended = start + (long) (sent * 1e9 / rate);
          if (intended >= end) break;
          if (intended > now) LockSupport.parkNanos(intended - now);
        } else {
          intended = now;
          if (now >= end) break;
        }
        byte[] value = payload.clone();
        ByteBuffer.wrap(value).putLong(intended);
        producer.send(new ProducerRecord<>(topic, value), (metadata, error) -> {
          long at = System.nanoTime();
          if (error == null) {
            sendAck.record((at - intended) / 1000);
            acknowledged.incrementAndGet();
            lastAck.accumulateAndGet(at, Math::max);
          } else {
            failed.incrementAndGet();
            firstError.compareAndSet(null, error.toString());
          }
        });
      }
      producer.flush();
      metrics = clientMetrics(producer.metrics());
    }
    double elapsed = (Math.max(lastAck.get(), start) - start) / 1e9;
    if (consumer != null) consumer.finish(acknowledged.get());
    return "{\"type\":\"result\",\"id\":" + id + ",\"sent\":" + sent + ",\"acknowledged\":" + acknowledged.get() + ",\"failed\":" + failed.get()
        + ",\"firstError\":" + quote(firstError.get()) + ",\"elapsedSeconds\":" + elapsed + ",\"sendAckUs\":" + sendAck.json()
        + ",\"consumed\":" + (consumer == null ? 0 : consumer.consumed) + ",\"endToEndUs\":" + (consumer == null ? "null" : consumer.latency.json())
        + ",\"metrics\":" + metricsJson(metrics) + "}";
  }

  /**
   * The producer's own view: Kafka's metric names, plus the batch count and records per batch it
   * implies. Every batch records its size in `batch-size-avg` and adds it to the topic's
   * `byte-total`, so their ratio counts the batches (the averages' 30 s windows cover a cell).
   */
  static Map<String, Double> clientMetrics(Map<MetricName, ? extends Metric> all) {
    Map<String, Double> m = new TreeMap<>();
    double topicBytes = Double.NaN;
    double topicRecords = Double.NaN;
    for (Map.Entry<MetricName, ? extends Metric> e : all.entrySet()) {
      MetricName n = e.getKey();
      if (!(e.getValue().metricValue() instanceof Double v)) continue;
      if (n.group().equals("producer-metrics")) {
        switch (n.name()) {
          case "batch-size-avg", "batch-size-max", "record-queue-time-avg", "record-queue-time-max", "records-per-request-avg",
              "bufferpool-wait-ratio", "request-latency-avg", "compression-rate-avg", "request-total", "record-send-total" -> m.put(n.name(), v);
          default -> { }
        }
      } else if (n.group().equals("producer-topic-metrics") && topic.equals(n.tags().get("topic"))) {
        if (n.name().equals("byte-total")) topicBytes = v;
        if (n.name().equals("record-send-total")) topicRecords = v;
      }
    }
    Double batchSize = m.get("batch-size-avg");
    if (batchSize != null && batchSize > 0 && !Double.isNaN(topicBytes)) {
      double batches = Math.round(topicBytes / batchSize);
      m.put("batches", batches);
      if (!Double.isNaN(topicRecords) && batches > 0) m.put("records-per-batch", topicRecords / batches);
    }
    return m;
  }

  static String metricsJson(Map<String, Double> m) {
    StringJoiner j = new StringJoiner(",", "{", "}");
    m.forEach((k, v) -> j.add(quote(k) + ":" + (Double.isFinite(v) ? v.toString() : "null")));
    return j.toString();
  }

  /** A consumer of the topic's partitions from their current ends, timing each record from its intended send time. */
  static final class EndToEnd extends Thread {
    final Histogram latency = new Histogram();
    volatile long consumed;
    volatile boolean stop;
    private final CountDownLatch positioned = new CountDownLatch(1);
    private volatile Exception failure;

    EndToEnd() {
      super("tune-end-to-end");
      setDaemon(true);
    }

    @Override
    public synchronized void start() {
      super.start();
      try {
        positioned.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (failure != null) throw new IllegalStateException("end-to-end consumer: " + failure, failure);
    }

    @Override
    public void run() {
      Properties props = new Properties();
      props.putAll(consumerProps);
      props.setProperty("bootstrap.servers", bootstrap);
      props.setProperty("key.deserializer", ByteArrayDeserializer.class.getName());
      props.setProperty("value.deserializer", ByteArrayDeserializer.class.getName());
      props.setProperty("enable.auto.commit", "false");
      try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
        List<TopicPartition> partitions = consumer.partitionsFor(topic).stream().map(p -> new TopicPartition(topic, p.partition())).toList();
        consumer.assign(partitions);
        consumer.seekToEnd(partitions);
        for (TopicPartition p : partitions) consumer.position(p);
        positioned.countDown();
        while (!stop) {
          for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
            long at = System.nanoTime();
            if (r.value() == null || r.value().length < 8) continue;
            latency.record((at - ByteBuffer.wrap(r.value()).getLong()) / 1000);
            consumed++;
          }
        }
      } catch (Exception e) {
        failure = e;
        positioned.countDown();
      }
    }

    void finish(long expected) throws InterruptedException {
      long deadline = System.nanoTime() + DRAIN_NANOS;
      while (consumed < expected && System.nanoTime() < deadline && isAlive()) Thread.sleep(5);
      stop = true;
      join();
    }
  }

  /** Microsecond latencies bucketed as driver-protocol.ts's latencyBucket: exact below 128, then 64 steps per power of two. */
  static final class Histogram {
    private final long[] counts = new long[128 + 64 * 57];

    synchronized void record(long micros) {
      counts[index(Math.max(0, micros))]++;
    }

    static int index(long v) {
      if (v < 128) return (int) v;
      int e = 63 - Long.numberOfLeadingZeros(v);
      return 128 + (e - 7) * 64 + (int) ((v >>> (e - 6)) - 64);
    }

    static long value(int i) {
      if (i < 128) return i;
      int e = (i - 128) / 64 + 7;
      return ((long) ((i - 128) % 64 + 64)) << (e - 6);
    }

    synchronized String json() {
      StringJoiner j = new StringJoiner(",", "[", "]");
      for (int i = 0; i < counts.length; i++) if (counts[i] > 0) j.add("[" + value(i) + "," + counts[i] + "]");
      return j.toString();
    }
  }

  static String quote(String s) {
    if (s == null) return "null";
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') b.append('\\').append(c);
      else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
      else b.append(c);
    }
    return b.append('"').toString();
  }
}
