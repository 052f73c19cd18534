#!/usr/bin/env bash
# Re-captures the golden frames end to end: fetches Apache Kafka (Maven Central), builds the
# TypeScript tools, runs Kafka behind the recording proxy while KafkaJS, kcat and the Java client
# talk to it, writes test/golden/** and the manifest, then renders every frame with Kafka's own
# decoder (.kafka.json). Kafka is stopped at the end. (Kafka's error table is exported by
# tools/codegen/ExportKafkaErrors.java.)
# Usage: tools/golden/capture.sh [--clients kafkajs,kcat,java]   (KAFKA_VERSION: the pinned tools/kafka/kafka-version by default)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
version="${KAFKA_VERSION:-$(tr -d "[:space:]" < tools/kafka/kafka-version)}"

command -v java >/dev/null || { echo "capture.sh: needs Java 17+ (apt-get install openjdk-17-jdk-headless)" >&2; exit 1; }
command -v mvn >/dev/null || { echo "capture.sh: needs Maven (apt-get install maven)" >&2; exit 1; }
command -v kcat >/dev/null || { echo "capture.sh: needs kcat (apt-get install kcat)" >&2; exit 1; }

libs="$(tools/kafka/fetch-kafka.sh "$version")"
npx tsc -p . || echo "capture.sh: tsc reported errors (see above); using the JavaScript it emitted" >&2
test -f dist/tools/golden/capture.js || { echo "capture.sh: dist/tools/golden/capture.js was not built" >&2; exit 1; }

node dist/tools/golden/capture.js --kafka-version "$version" "$@"

quiet="-Dlog4j2.configurationFile=$root/tools/golden/log4j2-quiet.properties"
java "$quiet" -cp "$libs/*" tools/golden/DecodeFrames.java test/golden
