#!/usr/bin/env bash
# Puts Apache Kafka's jars (broker, tools, clients, coordinators and their runtime dependencies)
# into .cache/kafka/<version>/libs, resolving them from Maven Central through tools/kafka/pom.xml,
# and beside them, in .cache/kafka/<version>/zookeeper-era/, the kafka-clients jar of the release
# pinned in tools/kafka/zookeeper-era-version, which codegen reads the ZooKeeper-era inter-broker
# APIs from (Kafka 4 removed them). That jar stays out of libs/, the release's classpath.
# Idempotent: a completed download leaves a marker file (for the legacy jar, the jar itself, moved
# into place whole) and is not repeated. Concurrent callers (test files run in parallel) wait for
# one another on a lock instead of downloading twice.
# Usage: tools/kafka/fetch-kafka.sh [version]   (default: the pinned tools/kafka/kafka-version)
# Prints the libs directory on stdout.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
version="${1:-$(tr -d '[:space:]' < "$root/tools/kafka/kafka-version")}"
libs="$root/.cache/kafka/$version/libs"
marker="$root/.cache/kafka/$version/.complete"
zk_version="$(tr -d '[:space:]' < "$root/tools/kafka/zookeeper-era-version")"
zk_dir="$root/.cache/kafka/$version/zookeeper-era"
zk_jar="$zk_dir/kafka-clients-$zk_version.jar"

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
if [[ ! -f "$zk_jar" ]]; then
  staging="$(mktemp -d "$root/.cache/kafka/$version/.zookeeper-era.XXXXXX")"
  trap 'rm -rf "$staging"' EXIT
  mvn -B -q -f "$root/tools/kafka/pom.xml" \
    -Dkafka.version="$version" \
    dependency:copy \
    -Dartifact="org.apache.kafka:kafka-clients:$zk_version" \
    -DoutputDirectory="$staging" >&2
  # A jar of a previously pinned legacy release goes, so the folder holds only what is pinned.
  rm -rf "$zk_dir"
  mkdir -p "$zk_dir"
  mv "$staging/kafka-clients-$zk_version.jar" "$zk_jar"
fi
echo "$libs"
