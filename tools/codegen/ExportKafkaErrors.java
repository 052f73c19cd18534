// Prints Apache Kafka's error table as JSON, read from the Errors enum of kafka-clients:
//   java -cp '.cache/kafka/<version>/libs/*' tools/codegen/ExportKafkaErrors.java > tools/codegen/kafka-errors.json
// tools/codegen/errors.ts turns it into src/protocol/errors.ts.
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.protocol.Errors;

public class ExportKafkaErrors {
    private static String quote(String s) {
        if (s == null) return "\"\"";
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') b.append('\\').append(c);
            else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        return b.append('"').toString();
    }

    public static void main(String[] args) {
        StringBuilder out = new StringBuilder("[\n");
        Errors[] all = Errors.values();
        for (int i = 0; i < all.length; i++) {
            Errors e = all[i];
            boolean retriable = e.exception() instanceof RetriableException;
            out.append(String.format("  {\"code\": %d, \"name\": %s, \"retriable\": %b, \"message\": %s}%s\n",
                e.code(), quote(e.name()), retriable, quote(e.message()), i + 1 < all.length ? "," : ""));
        }
        System.out.print(out.append("]\n"));
    }
}
