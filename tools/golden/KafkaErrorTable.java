// Writes Apache Kafka's complete error table (org.apache.kafka.common.protocol.Errors) as JSON, the
// source for Sluice's generated error codes:
//   [{ "code", "name", "retriable", "exception", "message" }, ...] ordered by code.
// retriable: Kafka's exception for the code is a RetriableException (what clients retry on).
// Usage: java -cp '.cache/kafka/<v>/libs/*' tools/golden/KafkaErrorTable.java tools/golden/errors.json
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.protocol.Errors;

public class KafkaErrorTable {
    public static void main(String[] args) throws Exception {
        if (args.length != 1) throw new IllegalArgumentException("usage: KafkaErrorTable OUTPUT_JSON");
        ObjectMapper mapper = new ObjectMapper();
        ArrayNode table = mapper.createArrayNode();
        Errors[] errors = Errors.values();
        Arrays.sort(errors, Comparator.comparingInt(Errors::code));
        for (Errors error : errors) {
            ApiException exception = error.exception();
            ObjectNode row = table.addObject();
            row.put("code", error.code());
            row.put("name", error.name());
            row.put("retriable", exception instanceof RetriableException);
            if (exception == null) row.putNull("exception");
            else row.put("exception", exception.getClass().getName());
            row.put("message", error.message());
        }
        Files.writeString(Path.of(args[0]), mapper.writerWithDefaultPrettyPrinter().writeValueAsString(table) + "\n");
        System.out.println("KafkaErrorTable: wrote " + table.size() + " errors to " + args[0]);
    }
}
