// Two KafkaConsumers with group.protocol=consumer (KIP-848) on a 4-partition topic: they must end
// with disjoint assignments covering every partition, commit with their member epochs, and when
// one leaves the other must get all four. Prints one JSON line per observation; run by
// kip848-java.test.ts as `java -cp '<kafka libs>/*' Kip848Consumers.java <bootstrap> <topic> <group>`.
import java.time.Duration;
import java.util.*;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.*;
import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.clients.producer.*;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

public class Kip848Consumers {
    static final long PHASE_TIMEOUT_MS = 60_000;

    /** A consumer on its own thread (KafkaConsumer is single-threaded) publishing its assignment. */
    static final class Member {
        final AtomicReference<Set<Integer>> assigned = new AtomicReference<>(Set.of());
        final AtomicReference<String> commit = new AtomicReference<>(null);
        final AtomicBoolean commitNow = new AtomicBoolean(false);
        final AtomicBoolean stop = new AtomicBoolean(false);
        final AtomicReference<Throwable> failure = new AtomicReference<>(null);
        final Thread thread;

        Member(String bootstrap, String topic, String group, String name) {
            thread = new Thread(() -> {
                Properties p = new Properties();
                p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
                p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
                p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
                p.put(ConsumerConfig.CLIENT_ID_CONFIG, name);
                p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
                p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
                p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
                p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
                try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p)) {
                    c.subscribe(List.of(topic));
                    while (!stop.get()) {
                        c.poll(Duration.ofMillis(100));
                        Set<Integer> now = new TreeSet<>();
                        for (TopicPartition tp : c.assignment()) now.add(tp.partition());
                        assigned.set(now);
                        if (commitNow.getAndSet(false)) {
                            try {
                                c.commitSync();
                                commit.set("ok");
                            } catch (Exception e) {
                                commit.set(e.getClass().getSimpleName());
                            }
                        }
                    }
                } catch (Throwable t) {
                    failure.set(t);
                }
            }, name);
            thread.start();
        }

        void close() throws InterruptedException {
            stop.set(true);
            thread.join(PHASE_TIMEOUT_MS);
        }
    }

    static void print(String type, String json) {
        System.out.println("{\"type\":\"" + type + "\"," + json + "}");
        System.out.flush();
    }

    static String list(Set<Integer> s) {
        StringJoiner j = new StringJoiner(",", "[", "]");
        for (Integer i : s) j.add(String.valueOf(i));
        return j.toString();
    }

    interface Condition { boolean holds(); }

    static boolean await(Condition c, Member... members) throws InterruptedException {
        long deadline = System.currentTimeMillis() + PHASE_TIMEOUT_MS;
        while (System.currentTimeMillis() < deadline) {
            for (Member m : members) if (m.failure.get() != null) throw new RuntimeException(m.failure.get());
            if (c.holds()) return true;
            Thread.sleep(100);
        }
        return false;
    }

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0], topic = args[1], group = args[2];
        Properties ap = new Properties();
        ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(ap)) {
            admin.createTopics(List.of(new NewTopic(topic, 4, (short) 1))).all().get();
            Properties pp = new Properties();
            pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(pp)) {
                for (int i = 0; i < 8; i++) producer.send(new ProducerRecord<>(topic, i % 4, "k" + i, "v" + i)).get();
            }

            Member a = new Member(bootstrap, topic, group, "kip848-a");
            boolean aAlone = await(() -> a.assigned.get().size() == 4, a);
            print("alone", "\"ok\":" + aAlone + ",\"a\":" + list(a.assigned.get()));

            Member b = new Member(bootstrap, topic, group, "kip848-b");
            boolean split = await(() -> {
                Set<Integer> sa = a.assigned.get(), sb = b.assigned.get();
                Set<Integer> all = new TreeSet<>(sa);
                all.addAll(sb);
                return !sa.isEmpty() && !sb.isEmpty() && sa.size() + sb.size() == 4 && all.size() == 4;
            }, a, b);
            print("two", "\"ok\":" + split + ",\"a\":" + list(a.assigned.get()) + ",\"b\":" + list(b.assigned.get()));

            a.commitNow.set(true);
            b.commitNow.set(true);
            await(() -> a.commit.get() != null && b.commit.get() != null, a, b);
            print("commits", "\"a\":\"" + a.commit.get() + "\",\"b\":\"" + b.commit.get() + "\"");

            ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(group)).all().get().get(group);
            print("described", "\"groupType\":\"" + d.type() + "\",\"state\":\"" + d.groupState() + "\",\"members\":" + d.members().size()
                + ",\"assignor\":\"" + d.partitionAssignor() + "\"");
            boolean listed = admin.listGroups().all().get().stream().anyMatch(g -> g.groupId().equals(group) && g.type().map(t -> t.toString()).orElse("").equals("Consumer"));
            print("listed", "\"ok\":" + listed);

            b.close();
            boolean takeover = await(() -> a.assigned.get().size() == 4, a);
            print("after-leave", "\"ok\":" + takeover + ",\"a\":" + list(a.assigned.get()));
            a.close();
        }
    }
}
