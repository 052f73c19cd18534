#!/usr/bin/env bash
# Puts Apache Kafka's jars (broker, tools, clients and their runtime dependencies) into
# .cache/kafka/<version>/libs, resolving them from Maven Central through tools/kafka/pom.xml.
# Idempotent: a completed download leaves a marker file and is not repeated.
# Usage: tools/kafka/fetch-kafka.sh [version]   (default: $KAFKA_VERSION or 4.4.0)
# Prints the libs directory on stdout.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
version="${1:-${KAFKA_VERSION:-4.4.0}}"
libs="$root/.cache/kafka/$version/libs"
marker="$root/.cache/kafka/$version/.complete"

if [[ ! -f "$marker" ]]; then
  rm -rf "$libs"
  mkdir -p "$libs"
  mvn -B -q -f "$root/tools/kafka/pom.xml" \
    -Dkafka.version="$version" \
    dependency:copy-dependencies \
    -DincludeScope=runtime \
    -DoutputDirectory="$libs" >&2
  touch "$marker"
fi
echo "$libs"
