// One step of the Java client's golden capture (the Java client sends Kafka's newest flexible
// versions). Run once per scenario so the recording proxy can label the step's connections:
//   java -cp '.cache/kafka/<v>/libs/*' tools/golden/clients/JavaClientSession.java BOOTSTRAP TOPIC GROUP SCENARIO
// Scenarios: admin, produce-{none,gzip,snappy,lz4,zstd}, consume, consume-consumer-protocol, group-admin.
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

public class JavaClientSession {
    static final String[] CODECS = {"none", "gzip", "snappy", "lz4", "zstd"};
    static final int MESSAGES_PER_BATCH = 3;

    public static void main(String[] args) throws Exception {
        if (args.length != 4) throw new IllegalArgumentException("usage: BOOTSTRAP TOPIC GROUP SCENARIO");
        String bootstrap = args[0], topic = args[1], group = args[2], scenario = args[3];
        Properties common = new Properties();
        common.put("bootstrap.servers", bootstrap);
        common.put("client.id", "golden-java");
        if (scenario.equals("admin")) admin(common, topic);
        else if (scenario.startsWith("produce-")) produce(common, topic, scenario.substring("produce-".length()));
        else if (scenario.equals("consume")) consume(common, topic, group, "classic");
        else if (scenario.equals("consume-consumer-protocol")) consume(common, topic, group + "-kip848", "consumer");
        else if (scenario.equals("group-admin")) groupAdmin(common, group);
        else throw new IllegalArgumentException("unknown scenario " + scenario);
    }

    static void admin(Properties common, String topic) throws Exception {
        try (Admin admin = Admin.create(common)) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
            admin.describeTopics(List.of(topic)).allTopicNames().get();
            admin.describeCluster().clusterId().get();
        }
    }

    static void produce(Properties common, String topic, String codec) throws Exception {
        Properties props = new Properties();
        props.putAll(common);
        props.put("compression.type", codec);
        props.put("linger.ms", "50");
        props.put("acks", "all");
        // Recent explicit timestamps: older ones would be deleted at once by time-based retention.
        long base = System.currentTimeMillis() / 1000 * 1000 - 60_000;
        List<Future<RecordMetadata>> acks = new ArrayList<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < MESSAGES_PER_BATCH; i++) {
                RecordHeaders headers = new RecordHeaders();
                headers.add("source", "java".getBytes(StandardCharsets.UTF_8));
                headers.add("codec", codec.getBytes(StandardCharsets.UTF_8));
                acks.add(producer.send(new ProducerRecord<>(topic, 0, base + i * 1000L, "key-" + codec + "-" + i,
                        "value " + i + " from java, " + codec, headers)));
            }
            for (Future<RecordMetadata> ack : acks) ack.get();
        }
    }

    static void consume(Properties common, String topic, String group, String protocol) {
        Properties props = new Properties();
        props.putAll(common);
        props.put("group.id", group);
        props.put("group.protocol", protocol);
        props.put("auto.offset.reset", "earliest");
        props.put("enable.auto.commit", "false");
        props.put("fetch.max.wait.ms", "200");
        if (protocol.equals("classic")) props.put("heartbeat.interval.ms", "100");
        int expected = CODECS.length * MESSAGES_PER_BATCH;
        int received = 0;
        long deadline = System.currentTimeMillis() + 30_000;
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(Set.of(topic));
            while (received < expected && System.currentTimeMillis() < deadline) {
                ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(200));
                received += records.count();
            }
            if (received < expected) throw new IllegalStateException("consumer got " + received + "/" + expected);
            consumer.commitSync();
            // A few more polls so heartbeats are exchanged before leaving the group.
            for (int i = 0; i < 3; i++) consumer.poll(Duration.ofMillis(200));
        }
    }

    static void groupAdmin(Properties common, String group) throws Exception {
        try (Admin admin = Admin.create(common)) {
            admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
            admin.describeConsumerGroups(List.of(group)).all().get();
            admin.listGroups().all().get();
        }
    }
}
