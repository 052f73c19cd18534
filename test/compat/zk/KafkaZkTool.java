// Kafka 3.9's own ZooKeeper client against a ZooKeeper that Sluice wrote (mode "read": prints
// what Kafka decodes, as one JSON line), or writing a cluster's znodes the way Kafka does for
// Sluice to read (mode "write": prints "ready", keeps its session, and so its ephemeral
// znodes, until stdin closes). Single-file source launch with Kafka 3.9.1's jars.
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeSet;
import kafka.api.LeaderAndIsr;
import kafka.cluster.Broker;
import kafka.cluster.EndPoint;
import kafka.controller.LeaderIsrAndControllerEpoch;
import kafka.zk.BrokerInfo;
import kafka.zk.KafkaZkClient;
import kafka.zk.ProducerIdBlockZNode;
import kafka.zk.TopicZNode;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.feature.Features;
import org.apache.kafka.common.feature.SupportedVersionRange;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.LeaderRecoveryState;
import org.apache.kafka.server.common.ProducerIdsBlock;
import org.apache.zookeeper.client.ZKClientConfig;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;

public class KafkaZkTool {
  public static void main(String[] args) throws Exception {
    KafkaZkClient zk = KafkaZkClient.apply(args[1], false, 10000, 10000, 10, Time.SYSTEM, "sluice-compat", new ZKClientConfig(),
        "kafka.server", "SessionExpireListener", true, false);
    try {
      if (args[0].equals("read")) read(zk, args[2], Integer.parseInt(args[3]));
      else write(zk);
    } finally {
      zk.close();
    }
  }

  static void read(KafkaZkClient zk, String topic, int partitions) {
    Map<String, Object> out = new HashMap<>();
    out.put("clusterId", zk.getClusterId().getOrElse(() -> null));
    List<Object> brokers = new ArrayList<>();
    for (Map.Entry<Broker, Object> e : CollectionConverters.asJava(zk.getAllBrokerAndEpochsInCluster()).entrySet()) {
      Broker b = e.getKey();
      List<Object> endpoints = new ArrayList<>();
      for (EndPoint ep : CollectionConverters.asJava(b.endPoints())) {
        endpoints.add(Map.of("listener", ep.listenerName().value(), "protocol", ep.securityProtocol().name, "host", ep.host(), "port", ep.port()));
      }
      Map<String, Object> broker = new HashMap<>();
      broker.put("id", b.id());
      broker.put("epoch", String.valueOf(e.getValue()));
      broker.put("rack", b.rack().getOrElse(() -> null));
      broker.put("endpoints", endpoints);
      brokers.add(broker);
    }
    out.put("brokers", brokers);
    out.put("controller", zk.getControllerId().getOrElse(() -> null));
    out.put("controllerEpoch", zk.getControllerEpoch().map(t -> t._1()).getOrElse(() -> null));
    out.put("topics", new TreeSet<>(CollectionConverters.asJava(zk.getAllTopicsInCluster(false))));
    scala.collection.immutable.Set<String> topics = CollectionConverters.asScala(java.util.Set.of(topic)).toSet();
    for (TopicZNode.TopicIdReplicaAssignment a : CollectionConverters.asJava(zk.getReplicaAssignmentAndTopicIdForTopics(topics))) {
      out.put("topicId", a.topicId().map(Uuid::toString).getOrElse(() -> null));
      Map<String, Object> assignment = new HashMap<>();
      for (Map.Entry<TopicPartition, kafka.controller.ReplicaAssignment> e : CollectionConverters.asJava(a.assignment()).entrySet()) {
        assignment.put(String.valueOf(e.getKey().partition()), Map.of(
            "replicas", CollectionConverters.asJava(e.getValue().replicas()),
            "adding", CollectionConverters.asJava(e.getValue().addingReplicas()),
            "removing", CollectionConverters.asJava(e.getValue().removingReplicas())));
      }
      out.put("assignment", assignment);
    }
    List<TopicPartition> tps = new ArrayList<>();
    for (int p = 0; p < partitions; p++) tps.add(new TopicPartition(topic, p));
    Map<String, Object> states = new HashMap<>();
    for (Map.Entry<TopicPartition, LeaderIsrAndControllerEpoch> e : CollectionConverters.asJava(zk.getTopicPartitionStates(CollectionConverters.asScala(tps))).entrySet()) {
      LeaderAndIsr l = e.getValue().leaderAndIsr();
      states.put(String.valueOf(e.getKey().partition()), Map.of(
          "leader", l.leader(), "leaderEpoch", l.leaderEpoch(), "isr", CollectionConverters.asJava(l.isr()),
          "partitionEpoch", l.partitionEpoch(), "controllerEpoch", e.getValue().controllerEpoch(),
          "recovery", l.leaderRecoveryState().name()));
    }
    out.put("states", states);
    out.put("topicConfig", new HashMap<>(zk.getEntityConfigs("topics", topic)));
    out.put("brokerDefaultConfig", new HashMap<>(zk.getEntityConfigs("brokers", "<default>")));
    out.put("deletions", CollectionConverters.asJava(zk.getTopicDeletions()));
    Option<byte[]> block = zk.getDataAndVersion(ProducerIdBlockZNode.path())._1();
    if (block.isDefined()) {
      ProducerIdsBlock b = ProducerIdBlockZNode.parseProducerIdBlockData(block.get());
      out.put("producerIdBlock", Map.of("broker", b.assignedBrokerId(), "first", String.valueOf(b.firstProducerId()), "size", b.size()));
    }
    System.out.println(json(out));
  }

  static void write(KafkaZkClient zk) throws Exception {
    zk.createTopLevelPaths();
    zk.createOrGetClusterId("kafka-made-cluster");
    List<EndPoint> endpoints = List.of(
        new EndPoint("kafka-7.example", 9092, ListenerName.forSecurityProtocol(SecurityProtocol.PLAINTEXT), SecurityProtocol.PLAINTEXT),
        new EndPoint("kafka-7.example", 9093, new ListenerName("REPLICATION"), SecurityProtocol.SSL));
    Broker broker = Broker.apply(7, CollectionConverters.asScala(endpoints), Option.apply("rack-k"),
        Features.supportedFeatures(Map.of("metadata.version", new SupportedVersionRange((short) 1, (short) 21))));
    long brokerEpoch = zk.registerBroker(new BrokerInfo(broker, 5, -1));
    scala.Tuple2<Object, Object> controller = zk.registerControllerAndIncrementControllerEpoch(7);
    int epochZkVersion = (Integer) controller._2();

    String topic = "kafka-made";
    Map<TopicPartition, scala.collection.Seq<Object>> assignment = new HashMap<>();
    assignment.put(new TopicPartition(topic, 0), CollectionConverters.asScala(List.<Object>of(7, 8)));
    assignment.put(new TopicPartition(topic, 1), CollectionConverters.asScala(List.<Object>of(8, 7)));
    Properties topicConfig = new Properties();
    topicConfig.setProperty("retention.ms", "3600000");
    zk.setOrCreateEntityConfigs("topics", topic, topicConfig);
    zk.createTopicAssignment(topic, Option.apply(Uuid.fromString("eGV0LWFub3RoZXItdG9waQ")), CollectionConverters.asScala(assignment));
    Map<TopicPartition, LeaderIsrAndControllerEpoch> states = new HashMap<>();
    states.put(new TopicPartition(topic, 0), new LeaderIsrAndControllerEpoch(
        LeaderAndIsr.apply(7, 3, scala.collection.immutable.List.from(CollectionConverters.asScala(List.<Object>of(7, 8))), LeaderRecoveryState.RECOVERED, 0), (Integer) controller._1()));
    states.put(new TopicPartition(topic, 1), new LeaderIsrAndControllerEpoch(
        LeaderAndIsr.apply(8, 0, scala.collection.immutable.List.from(CollectionConverters.asScala(List.<Object>of(8))), LeaderRecoveryState.RECOVERING, 0), (Integer) controller._1()));
    zk.createTopicPartitionStatesRaw(CollectionConverters.asScala(states), epochZkVersion);
    Properties brokerDefaults = new Properties();
    brokerDefaults.setProperty("log.cleaner.threads", "2");
    zk.setOrCreateEntityConfigs("brokers", "<default>", brokerDefaults);
    zk.createConfigChangeNotification("brokers/<default>");
    // As ZkProducerIdManager claims a block: a conditional update of the znode createTopLevelPaths made.
    zk.conditionalUpdatePath(ProducerIdBlockZNode.path(), ProducerIdBlockZNode.generateProducerIdBlockJson(new ProducerIdsBlock(7, 5000L, 1000)), 0, Option.empty());
    zk.createDeleteTopicPath("kafka-made");

    System.out.println(json(Map.of("ready", true, "brokerEpoch", String.valueOf(brokerEpoch), "controllerEpoch", controller._1(), "epochZkVersion", epochZkVersion)));
    System.out.flush();
    while (System.in.read() != -1) {
      // Hold the session (the ephemeral broker and controller znodes) until the test is done.
    }
  }

  static String json(Object v) {
    if (v == null) return "null";
    if (v instanceof String s) return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    if (v instanceof Number || v instanceof Boolean) return v.toString();
    if (v instanceof Map<?, ?> m) {
      List<String> parts = new ArrayList<>();
      for (Map.Entry<?, ?> e : m.entrySet()) parts.add(json(String.valueOf(e.getKey())) + ":" + json(e.getValue()));
      return "{" + String.join(",", parts) + "}";
    }
    if (v instanceof Iterable<?> it) {
      List<String> parts = new ArrayList<>();
      for (Object o : it) parts.add(json(o));
      return "[" + String.join(",", parts) + "]";
    }
    return json(v.toString());
  }
}
