#!/usr/bin/env bash
# Puts Apache Kafka's jars (broker, tools, clients, coordinators and their runtime dependencies)
# into .cache/kafka/<version>/libs, resolving them from Maven Central through tools/kafka/pom.xml.
# Idempotent: a completed download leaves a marker file and is not repeated. Concurrent callers
# (test files run in parallel) wait for one another on a lock instead of downloading twice.
# Usage: tools/kafka/fetch-kafka.sh [version]   (default: the pinned tools/kafka/kafka-version)
# Prints the libs directory on stdout.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
version="${1:-$(tr -d '[:space:]' < "$root/tools/kafka/kafka-version")}"
libs="$root/.cache/kafka/$version/libs"
marker="$root/.cache/kafka/$version/.complete"

mkdir -p "$root/.cache/kafka/$version"
exec 9>"$root/.cache/kafka/$version/.lock"
flock 9
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
