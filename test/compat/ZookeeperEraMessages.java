// An oracle for the ZooKeeper-era inter-broker codecs, independent of Sluice: Apache Kafka 3.9's
// own generated message classes read what Sluice wrote, then write it again.
// Reads lines "<MessageName> <version> <hex>" on stdin (e.g. "LeaderAndIsrRequest 7 0001..."), and
// for each writes one JSON line on stdout:
//   { "json": <Kafka's *JsonConverter rendering>, "hex": <Kafka's own encoding of what it read> }
// or { "error": "..." } when Kafka cannot read the bytes or leaves some of them unread.
// Usage: java -cp '<kafka-clients-3.9.1.jar>:<jackson jars>' test/compat/ZookeeperEraMessages.java
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.protocol.Readable;

public class ZookeeperEraMessages {
    static final ObjectMapper MAPPER = new ObjectMapper();
    static final String PACKAGE = "org.apache.kafka.common.message.";

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            if (line.isBlank()) continue;
            String[] parts = line.split(" ", -1);
            ObjectNode out = MAPPER.createObjectNode();
            try {
                roundTrip(parts[0], Short.parseShort(parts[1]), HexFormat.of().parseHex(parts[2]), out);
            } catch (Exception e) {
                Throwable cause = e.getCause() != null ? e.getCause() : e;
                out.put("error", cause.getClass().getSimpleName() + ": " + cause.getMessage());
            }
            System.out.println(MAPPER.writeValueAsString(out));
        }
    }

    /** Every generated class FooData has a (Readable, short) constructor and a FooDataJsonConverter. */
    static void roundTrip(String message, short version, byte[] bytes, ObjectNode out) throws Exception {
        Class<?> dataClass = Class.forName(PACKAGE + message + "Data");
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        ApiMessage data = (ApiMessage) dataClass.getConstructor(Readable.class, short.class)
                .newInstance(new ByteBufferAccessor(buffer), version);
        if (buffer.hasRemaining()) throw new IllegalStateException("Kafka left " + buffer.remaining() + " bytes unread");
        Class<?> converter = Class.forName(dataClass.getName() + "JsonConverter");
        JsonNode json = (JsonNode) converter.getMethod("write", dataClass, short.class).invoke(null, data, version);
        out.set("json", json);
        out.put("hex", HexFormat.of().formatHex(MessageUtil.byteBufferToArray(MessageUtil.toByteBuffer(data, version))));
    }
}
