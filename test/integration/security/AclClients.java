// The Java client (kafka-clients 4.4.0, unmodified) against a broker with ACLs, driven by
// acls.test.ts. Single-file source program:
//   java -cp '<kafka libs>/*' AclClients.java <bootstrap> <principal> <allowed topic> <denied topic>
// With the AdminClient it creates an ACL letting <principal> WRITE <allowed topic>, lists it,
// produces to both topics with the (idempotent) producer, then deletes the ACL and lists again.
// Prints what happened as JSON lines on stdout; the test judges them.

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.*;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.*;
import org.apache.kafka.clients.producer.*;
import org.apache.kafka.common.acl.*;
import org.apache.kafka.common.resource.*;
import org.apache.kafka.common.serialization.StringSerializer;

public class AclClients {
  static final ObjectMapper JSON = new ObjectMapper();

  public static void main(String[] args) throws Exception {
    String bootstrap = args[0], principal = args[1], allowed = args[2], denied = args[3];
    Properties ap = new Properties();
    ap.put("bootstrap.servers", bootstrap);
    AclBinding writeAllowed = new AclBinding(new ResourcePattern(ResourceType.TOPIC, allowed, PatternType.LITERAL),
        new AccessControlEntry(principal, "*", AclOperation.WRITE, AclPermissionType.ALLOW));
    AclBindingFilter onAllowed = new AclBindingFilter(new ResourcePatternFilter(ResourceType.TOPIC, allowed, PatternType.ANY), AccessControlEntryFilter.ANY);
    try (Admin admin = Admin.create(ap)) {
      admin.createAcls(List.of(writeAllowed)).all().get();
      emit("described", "acls", describe(admin, onAllowed));
      emit("produced", "topic", allowed, "error", produce(bootstrap, allowed));
      emit("produced", "topic", denied, "error", produce(bootstrap, denied));
      Collection<AclBinding> deleted = admin.deleteAcls(List.of(onAllowed)).all().get();
      emit("deleted", "count", deleted.size());
      emit("described", "acls", describe(admin, onAllowed));
    }
    System.out.flush();
  }

  static List<String> describe(Admin admin, AclBindingFilter filter) throws Exception {
    List<String> out = new ArrayList<>();
    for (AclBinding b : admin.describeAcls(filter).values().get()) out.add(b.pattern().name() + " " + b.entry().principal() + " " + b.entry().operation() + " " + b.entry().permissionType());
    return out;
  }

  /** The simple name of the exception a send failed with, or "none". */
  static String produce(String bootstrap, String topic) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("key.serializer", StringSerializer.class.getName());
    p.put("value.serializer", StringSerializer.class.getName());
    p.put("max.block.ms", "10000");
    p.put("delivery.timeout.ms", "10000");
    p.put("request.timeout.ms", "5000");
    try (Producer<String, String> producer = new KafkaProducer<>(p)) {
      producer.send(new ProducerRecord<>(topic, "k", "v")).get();
      return "none";
    } catch (ExecutionException e) {
      return e.getCause().getClass().getSimpleName();
    } catch (Exception e) {
      return e.getClass().getSimpleName();
    }
  }

  static void emit(String type, Object... fields) {
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
}
