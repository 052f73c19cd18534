// The Java client (kafka-clients 4.4.0, unmodified) over SASL, driven by the SASL tests.
// Single-file source program:
//   java -cp '<kafka libs>/*' [-Dclient.config=FILE] SaslClients.java <scenario> <bootstrap> <protocol> <mechanism> <user> <password> [args...]
// -Dclient.config names a properties file of further client settings (the truststore of SASL_SSL).
// Prints what happened as JSON lines on stdout; the tests judge them.

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.*;
import org.apache.kafka.clients.admin.*;
import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.clients.producer.*;
import org.apache.kafka.common.*;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

public class SaslClients {
  static final ObjectMapper JSON = new ObjectMapper();
  static Properties security = new Properties();

  public static void main(String[] args) throws Exception {
    security.put("bootstrap.servers", args[1]);
    security.put("security.protocol", args[2]);
    security.put("sasl.mechanism", args[3]);
    String module = args[3].equals("PLAIN") ? "org.apache.kafka.common.security.plain.PlainLoginModule" : "org.apache.kafka.common.security.scram.ScramLoginModule";
    security.put("sasl.jaas.config", module + " required username=\"" + args[4] + "\" password=\"" + args[5] + "\";");
    String extra = System.getProperty("client.config");
    if (extra != null) {
      try (java.io.FileReader r = new java.io.FileReader(extra)) {
        security.load(r);
      }
    }
    switch (args[0]) {
      case "roundtrip" -> roundtrip(args[6], Integer.parseInt(args[7]));
      case "denied" -> denied(args[6]);
      case "scram-admin" -> scramAdmin(args[6], args[7]);
      case "reauth" -> reauth(args[6], Long.parseLong(args[7]));
      default -> throw new IllegalArgumentException("unknown scenario " + args[0]);
    }
    System.out.flush();
  }

  static synchronized void emit(String type, Object... fields) {
    ObjectNode n = JSON.createObjectNode();
    n.put("type", type);
    for (int i = 0; i < fields.length; i += 2) n.set((String) fields[i], JSON.valueToTree(fields[i + 1]));
    System.out.println(n);
    System.out.flush();
  }

  static Properties props(Object... kv) {
    Properties p = new Properties();
    p.putAll(security);
    for (int i = 0; i < kv.length; i += 2) p.put(kv[i], kv[i + 1]);
    return p;
  }

  static void createTopic(Admin admin, String topic) throws Exception {
    try {
      admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
    } catch (java.util.concurrent.ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) throw e;
    }
  }

  static void roundtrip(String topic, int count) throws Exception {
    try (Admin admin = Admin.create(props())) {
      createTopic(admin, topic);
    }
    try (Producer<String, String> producer = new KafkaProducer<>(props("key.serializer", StringSerializer.class.getName(), "value.serializer", StringSerializer.class.getName(), "acks", "all"))) {
      for (int i = 0; i < count; i++) producer.send(new ProducerRecord<>(topic, "v" + i)).get();
    }
    List<String> values = new ArrayList<>();
    try (Consumer<String, String> consumer = new KafkaConsumer<>(props("key.deserializer", StringDeserializer.class.getName(), "value.deserializer", StringDeserializer.class.getName(), "group.id", "sasl-" + topic, "auto.offset.reset", "earliest"))) {
      consumer.subscribe(List.of(topic));
      long deadline = System.currentTimeMillis() + 60_000;
      while (values.size() < count && System.currentTimeMillis() < deadline) {
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) values.add(r.value());
      }
      consumer.commitSync();
    }
    emit("roundtrip", "produced", count, "consumed", values);
  }

  /** Both an admin call and a send must fail with the authentication error, not hang or retry. */
  static void denied(String topic) {
    try (Admin admin = Admin.create(props("default.api.timeout.ms", "20000", "request.timeout.ms", "10000"))) {
      admin.listTopics().names().get();
      emit("admin", "error", null);
    } catch (Exception e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      emit("admin", "error", cause.getClass().getSimpleName(), "message", cause.getMessage());
    }
    try (Producer<String, String> producer = new KafkaProducer<>(props("key.serializer", StringSerializer.class.getName(), "value.serializer", StringSerializer.class.getName(), "max.block.ms", "20000"))) {
      producer.send(new ProducerRecord<>(topic, "never")).get();
      emit("producer", "error", null);
    } catch (Exception e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      emit("producer", "error", cause.getClass().getSimpleName(), "message", cause.getMessage());
    }
  }

  static void scramAdmin(String user, String password) throws Exception {
    try (Admin admin = Admin.create(props())) {
      admin.alterUserScramCredentials(List.of(
          new UserScramCredentialUpsertion(user, new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 8192), password),
          new UserScramCredentialUpsertion(user + "-512", new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), password))).all().get();
      Map<String, UserScramCredentialsDescription> described = admin.describeUserScramCredentials(List.of(user, user + "-512")).all().get();
      List<String> infos = new ArrayList<>();
      for (UserScramCredentialsDescription d : described.values()) for (ScramCredentialInfo i : d.credentialInfos()) infos.add(d.name() + ":" + i.mechanism() + ":" + i.iterations());
      Collections.sort(infos);
      emit("described", "credentials", infos);
      try {
        admin.describeUserScramCredentials(List.of("nobody")).description("nobody").get();
        emit("nobody", "error", null);
      } catch (java.util.concurrent.ExecutionException e) {
        emit("nobody", "error", e.getCause().getClass().getSimpleName());
      }
      try {
        admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(user, new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 100), password))).all().get();
        emit("weak", "error", null);
      } catch (java.util.concurrent.ExecutionException e) {
        emit("weak", "error", e.getCause().getClass().getSimpleName(), "message", e.getCause().getMessage());
      }
    }
  }

  /** Produces one record every 100 ms for `durationMs`, across however many re-authentications the broker asks for. */
  static void reauth(String topic, long durationMs) throws Exception {
    try (Admin admin = Admin.create(props())) {
      createTopic(admin, topic);
    }
    int acked = 0;
    List<String> errors = new ArrayList<>();
    try (Producer<String, String> producer = new KafkaProducer<>(props("key.serializer", StringSerializer.class.getName(), "value.serializer", StringSerializer.class.getName(), "acks", "all"))) {
      long end = System.currentTimeMillis() + durationMs;
      while (System.currentTimeMillis() < end) {
        try {
          producer.send(new ProducerRecord<>(topic, "r" + acked)).get();
          acked++;
        } catch (Exception e) {
          errors.add(String.valueOf(e.getCause()));
        }
        Thread.sleep(100);
      }
      double reauths = 0;
      for (Map.Entry<MetricName, ? extends Metric> m : producer.metrics().entrySet()) {
        if (m.getKey().name().equals("successful-reauthentication-total")) reauths += (Double) m.getValue().metricValue();
      }
      emit("reauth", "acked", acked, "errors", errors, "reauthentications", reauths);
    }
  }
}
