// An oracle independent of Sluice: decodes every golden frame with Apache Kafka's own classes and
// writes Kafka's JSON rendering of it next to the frame, as <frame without .bin>.kafka.json:
//   { "header": <RequestHeaderData|ResponseHeaderData as JSON>, "body": <message data as JSON> }
// rendered by Kafka's generated *JsonConverter.write(data, version, serializeRecords=false): record
// batches appear as "recordsSizeInBytes": <int>, because with serializeRecords=true Kafka writes an
// empty placeholder ("records": "") rather than the bytes.
// It also cross-checks the manifest (API key, version, correlation id, header versions) and fails
// when Kafka leaves bytes of a frame unread.
// Usage: java -cp '.cache/kafka/<v>/libs/*' tools/golden/DecodeFrames.java test/golden
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.ResponseHeader;

public class DecodeFrames {
    static final ObjectMapper MAPPER = new ObjectMapper();

    public static void main(String[] args) throws Exception {
        if (args.length != 1) throw new IllegalArgumentException("usage: DecodeFrames GOLDEN_DIR");
        Path goldenDir = Path.of(args[0]);
        JsonNode frames = MAPPER.readTree(goldenDir.resolve("manifest.json").toFile()).get("frames");
        int written = 0;
        for (JsonNode entry : frames) {
            String file = entry.get("file").asText();
            ByteBuffer buffer = ByteBuffer.wrap(Files.readAllBytes(goldenDir.resolve(file)));
            ObjectNode json = entry.get("direction").asText().equals("request")
                    ? decodeRequest(entry, buffer)
                    : decodeResponse(entry, buffer);
            if (buffer.hasRemaining()) {
                throw new IllegalStateException(file + ": Kafka left " + buffer.remaining() + " bytes unread");
            }
            Path out = goldenDir.resolve(file.replaceFirst("\\.bin$", "") + ".kafka.json");
            Files.writeString(out, MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(json) + "\n");
            written++;
        }
        System.out.println("DecodeFrames: wrote " + written + " .kafka.json files under " + goldenDir);
    }

    static ObjectNode decodeRequest(JsonNode entry, ByteBuffer buffer) throws Exception {
        RequestHeader header = RequestHeader.parse(buffer);
        ApiKeys api = header.apiKey();
        short version = header.apiVersion();
        expect(entry, "apiKey", api.id);
        expect(entry, "apiVersion", version);
        expect(entry, "correlationId", header.correlationId());
        expect(entry, "requestHeaderVersion", header.headerVersion());
        AbstractRequest request = AbstractRequest.parseRequest(api, version, new ByteBufferAccessor(buffer)).request;
        ObjectNode json = MAPPER.createObjectNode();
        json.set("header", render(header.data(), header.headerVersion()));
        json.set("body", render(request.data(), version));
        return json;
    }

    static ObjectNode decodeResponse(JsonNode entry, ByteBuffer buffer) throws Exception {
        ApiKeys api = ApiKeys.forId(entry.get("apiKey").asInt());
        short version = (short) entry.get("apiVersion").asInt();
        short headerVersion = api.responseHeaderVersion(version);
        expect(entry, "responseHeaderVersion", headerVersion);
        ResponseHeader header = ResponseHeader.parse(buffer, headerVersion);
        expect(entry, "correlationId", header.correlationId());
        AbstractResponse response = AbstractResponse.parseResponse(api, new ByteBufferAccessor(buffer), version);
        ObjectNode json = MAPPER.createObjectNode();
        json.set("header", render(header.data(), headerVersion));
        json.set("body", render(response.data(), version));
        return json;
    }

    static void expect(JsonNode entry, String field, int kafkaValue) {
        JsonNode recorded = entry.get(field);
        if (recorded == null || recorded.asInt() != kafkaValue) {
            throw new IllegalStateException(entry.get("file").asText() + ": manifest " + field + "=" + recorded
                    + " but Kafka reads " + kafkaValue);
        }
    }

    /** Every generated message class Foo has a FooJsonConverter beside it; there is no common interface. */
    static JsonNode render(ApiMessage data, short version) throws Exception {
        Class<?> converter = Class.forName(data.getClass().getName() + "JsonConverter");
        Method write = converter.getMethod("write", data.getClass(), short.class, boolean.class);
        return (JsonNode) write.invoke(null, data, version, false);
    }
}
