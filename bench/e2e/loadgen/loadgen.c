/*
 * A lean Kafka load generator on librdkafka, so that a benchmark measures the broker and not
 * the client: Kafka's Java ProducerPerformance spends ~11 CPU s per GB of 1 KiB records, this
 * one ~3. The bench builds it on first use (bench/e2e/loadgen.ts) and reads the one JSON line it
 * prints on stdout.
 *
 *   loadgen produce --bootstrap B --topic T --records N --record-size S [--acks 1|all]
 *                   [--compression none|gzip|snappy|lz4|zstd] [--linger-ms MS] [--batch-size BYTES]
 *   loadgen consume --bootstrap B --topic T --partitions P --records N
 *                   assign() partitions 0..P-1 from the beginning, read N records
 *   loadgen latency --bootstrap B --topic T --partitions P --rate R --record-size S
 *                   --seconds D [--warmup W] [--acks ...] [--linger-ms ...] [--batch-size ...]
 *                   fixed-rate producer and an assign() consumer in one process; each record
 *                   carries its intended send time (CLOCK_MONOTONIC), so a stalled producer
 *                   cannot hide latency (coordinated omission)
 *   --set key=value  any further librdkafka property (repeatable)
 *
 * Produced values are one random upper-case payload repeated, as ProducerPerformance sends
 * them; the latency mode writes the send time into the first 8 bytes of each.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <librdkafka/rdkafka.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#define MAX_SETTINGS 64
#define STATS_INTERVAL_MS 200
#define STALL_SECONDS 120
/* The fixed-rate producer sends in ticks of this length (see run_latency). */
#define PACE_NS 500000LL

struct options {
  const char *mode;
  const char *bootstrap;
  const char *topic;
  long long records;
  int record_size;
  const char *acks;
  const char *compression;
  const char *linger_ms;
  const char *batch_size;
  int partitions;
  long rate;
  int seconds;
  int warmup;
  const char *settings[MAX_SETTINGS];
  int n_settings;
};

/* Totals from librdkafka's statistics: bytes on the wire, to see compression and fetch overhead. */
struct wire {
  _Atomic long long tx_bytes;
  _Atomic long long rx_bytes;
  _Atomic int reports;
};

static _Atomic long long delivered;
static _Atomic long long delivery_errors;
static char first_error[256];

static void die(const char *what, const char *detail) {
  fprintf(stderr, "loadgen: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
  exit(1);
}

static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* user + system CPU of the whole process (librdkafka's threads included). */
static double cpu_seconds(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return (double)u.ru_utime.tv_sec + (double)u.ru_utime.tv_usec / 1e6 + (double)u.ru_stime.tv_sec +
         (double)u.ru_stime.tv_usec / 1e6;
}

static long long json_top_level(const char *json, const char *key) {
  /* "tx_bytes" and "rx_bytes" with the underscore occur only at the top level of the stats. */
  const char *at = strstr(json, key);
  return at ? atoll(at + strlen(key)) : -1;
}

static int on_stats(rd_kafka_t *rk, char *json, size_t len, void *opaque) {
  (void)rk;
  (void)len;
  struct wire *w = opaque;
  long long tx = json_top_level(json, "\"tx_bytes\":");
  long long rx = json_top_level(json, "\"rx_bytes\":");
  if (tx >= 0) atomic_store(&w->tx_bytes, tx);
  if (rx >= 0) atomic_store(&w->rx_bytes, rx);
  atomic_fetch_add(&w->reports, 1);
  return 0;
}

static void on_delivery(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque) {
  (void)rk;
  (void)opaque;
  if (m->err) {
    if (atomic_fetch_add(&delivery_errors, 1) == 0) snprintf(first_error, sizeof first_error, "%s", rd_kafka_err2str(m->err));
  } else {
    atomic_fetch_add(&delivered, 1);
  }
}

static void on_error(rd_kafka_t *rk, int err, const char *reason, void *opaque) {
  (void)opaque;
  if (err == RD_KAFKA_RESP_ERR__FATAL) {
    char why[256];
    rd_kafka_fatal_error(rk, why, sizeof why);
    die("fatal client error", why);
  }
  fprintf(stderr, "loadgen: %s: %s\n", rd_kafka_err2name(err), reason);
}

static void set(rd_kafka_conf_t *conf, const char *key, const char *value) {
  char err[256];
  if (rd_kafka_conf_set(conf, key, value, err, sizeof err) != RD_KAFKA_CONF_OK) die(key, err);
}

static rd_kafka_conf_t *base_conf(const struct options *o, struct wire *w) {
  rd_kafka_conf_t *conf = rd_kafka_conf_new();
  set(conf, "bootstrap.servers", o->bootstrap);
  char interval[16];
  snprintf(interval, sizeof interval, "%d", STATS_INTERVAL_MS);
  set(conf, "statistics.interval.ms", interval);
  rd_kafka_conf_set_stats_cb(conf, on_stats);
  rd_kafka_conf_set_error_cb(conf, on_error);
  rd_kafka_conf_set_opaque(conf, w);
  return conf;
}

/* Applied last, so --set overrides the bench's own settings. */
static void apply_settings(rd_kafka_conf_t *conf, const struct options *o) {
  for (int i = 0; i < o->n_settings; i++) {
    char key[256];
    const char *eq = strchr(o->settings[i], '=');
    if (!eq || eq == o->settings[i] || (size_t)(eq - o->settings[i]) >= sizeof key) die("--set needs key=value", o->settings[i]);
    memcpy(key, o->settings[i], (size_t)(eq - o->settings[i]));
    key[eq - o->settings[i]] = '\0';
    set(conf, key, eq + 1);
  }
}

static rd_kafka_t *producer(const struct options *o, struct wire *w) {
  rd_kafka_conf_t *conf = base_conf(o, w);
  set(conf, "acks", o->acks);
  set(conf, "compression.codec", o->compression);
  set(conf, "linger.ms", o->linger_ms);
  set(conf, "batch.size", o->batch_size);
  apply_settings(conf, o);
  rd_kafka_conf_set_dr_msg_cb(conf, on_delivery);
  char err[512];
  rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
  if (!rk) die("producer", err);
  return rk;
}

static rd_kafka_t *consumer(const struct options *o, struct wire *w) {
  rd_kafka_conf_t *conf = base_conf(o, w);
  /* librdkafka's assign() wants a group.id; nothing is committed, and no group is joined. */
  set(conf, "group.id", "loadgen-assign");
  set(conf, "enable.auto.commit", "false");
  set(conf, "enable.auto.offset.store", "false");
  apply_settings(conf, o);
  char err[512];
  rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
  if (!rk) die("consumer", err);
  rd_kafka_poll_set_consumer(rk);
  rd_kafka_topic_partition_list_t *parts = rd_kafka_topic_partition_list_new(o->partitions);
  for (int p = 0; p < o->partitions; p++) rd_kafka_topic_partition_list_add(parts, o->topic, p)->offset = RD_KAFKA_OFFSET_BEGINNING;
  rd_kafka_resp_err_t e = rd_kafka_assign(rk, parts);
  rd_kafka_topic_partition_list_destroy(parts);
  if (e) die("assign", rd_kafka_err2str(e));
  return rk;
}

static void fill_payload(char *buf, int size) {
  srand(42);
  for (int i = 0; i < size; i++) buf[i] = (char)('A' + rand() % 26);
}

/* Stats come every STATS_INTERVAL_MS: wait for one more so the totals cover the whole run. */
static void settle_stats(rd_kafka_t *rk, struct wire *w, int is_consumer) {
  int seen = atomic_load(&w->reports);
  double until = now_seconds() + 3.0 * STATS_INTERVAL_MS / 1000.0;
  while (atomic_load(&w->reports) < seen + 2 && now_seconds() < until) {
    if (is_consumer) {
      rd_kafka_message_t *m = rd_kafka_consumer_poll(rk, 20);
      if (m) rd_kafka_message_destroy(m);
    } else {
      rd_kafka_poll(rk, 20);
    }
  }
}

static void print_cpu_and_wire(double cpu, const struct wire *w) {
  printf("\"cpuSeconds\":%.3f,\"wireTxBytes\":%lld,\"wireRxBytes\":%lld", cpu, atomic_load(&w->tx_bytes), atomic_load(&w->rx_bytes));
}

static int run_produce(const struct options *o) {
  struct wire w = {0};
  rd_kafka_t *rk = producer(o, &w);
  rd_kafka_topic_t *rkt = rd_kafka_topic_new(rk, o->topic, NULL);
  char *payload = malloc((size_t)o->record_size);
  fill_payload(payload, o->record_size);
  /* Wait for the topic's metadata so the timed part is producing only. */
  const struct rd_kafka_metadata *md;
  if (rd_kafka_metadata(rk, 0, rkt, &md, 30000) != RD_KAFKA_RESP_ERR_NO_ERROR) die("metadata", o->topic);
  rd_kafka_metadata_destroy(md);
  double cpu0 = cpu_seconds();
  double t0 = now_seconds();
  for (long long i = 0; i < o->records; i++) {
    /* No copy: the payload outlives every delivery. */
    while (rd_kafka_produce(rkt, RD_KAFKA_PARTITION_UA, 0, payload, (size_t)o->record_size, NULL, 0, NULL) == -1) {
      rd_kafka_resp_err_t e = rd_kafka_last_error();
      if (e != RD_KAFKA_RESP_ERR__QUEUE_FULL) die("produce", rd_kafka_err2str(e));
      rd_kafka_poll(rk, 1);
    }
    if ((i & 1023) == 0) rd_kafka_poll(rk, 0);
  }
  while (rd_kafka_outq_len(rk) > 0) rd_kafka_poll(rk, 5);
  double seconds = now_seconds() - t0;
  double cpu = cpu_seconds() - cpu0;
  settle_stats(rk, &w, 0);
  long long ok = atomic_load(&delivered);
  printf("{\"mode\":\"produce\",\"records\":%lld,\"bytes\":%lld,\"seconds\":%.3f,\"errors\":%lld,", ok, ok * o->record_size, seconds,
         atomic_load(&delivery_errors));
  print_cpu_and_wire(cpu, &w);
  printf("}\n");
  if (atomic_load(&delivery_errors) > 0) fprintf(stderr, "loadgen: %lld records failed, first: %s\n", atomic_load(&delivery_errors), first_error);
  rd_kafka_topic_destroy(rkt);
  rd_kafka_destroy(rk);
  free(payload);
  return atomic_load(&delivery_errors) > 0 ? 1 : 0;
}

static int run_consume(const struct options *o) {
  struct wire w = {0};
  rd_kafka_t *rk = consumer(o, &w);
  long long records = 0, bytes = 0;
  double cpu0 = cpu_seconds();
  double t0 = now_seconds();
  double last_progress = t0;
  while (records < o->records) {
    rd_kafka_message_t *m = rd_kafka_consumer_poll(rk, 1000);
    double now = now_seconds();
    if (!m) {
      if (now - last_progress > STALL_SECONDS) die("consume", "no record for two minutes");
      continue;
    }
    if (m->err) {
      fprintf(stderr, "loadgen: consume: %s\n", rd_kafka_message_errstr(m));
    } else {
      records++;
      bytes += (long long)m->len + (long long)m->key_len;
      last_progress = now;
    }
    rd_kafka_message_destroy(m);
  }
  double seconds = now_seconds() - t0;
  double cpu = cpu_seconds() - cpu0;
  settle_stats(rk, &w, 1);
  printf("{\"mode\":\"consume\",\"records\":%lld,\"bytes\":%lld,\"seconds\":%.3f,\"errors\":0,", records, bytes, seconds);
  print_cpu_and_wire(cpu, &w);
  printf("}\n");
  rd_kafka_consumer_close(rk);
  rd_kafka_destroy(rk);
  return 0;
}

/*
 * Latencies in microseconds, log-linear buckets: exact below 2048 µs, then 1024 buckets per power
 * of two (error < 0.1%), so a 30-minute soak needs no more memory than a 10-second probe.
 */
#define SUB_BITS 10
#define SUB_COUNT (1 << SUB_BITS)
#define BUCKETS (2 * SUB_COUNT + 32 * SUB_COUNT)

static int bucket_of(uint64_t us) {
  if (us < 2 * SUB_COUNT) return (int)us;
  int shift = 63 - __builtin_clzll(us) - SUB_BITS;
  return 2 * SUB_COUNT + (shift - 1) * SUB_COUNT + (int)((us >> shift) - SUB_COUNT);
}

static uint64_t bucket_floor(int b) {
  if (b < 2 * SUB_COUNT) return (uint64_t)b;
  int shift = (b - 2 * SUB_COUNT) / SUB_COUNT + 1;
  return ((uint64_t)((b - 2 * SUB_COUNT) % SUB_COUNT) + SUB_COUNT) << shift;
}

struct histogram {
  uint64_t counts[BUCKETS];
  long long total;
  uint64_t max;
};

static void record_latency(struct histogram *h, uint64_t us) {
  if (us > UINT32_MAX) us = UINT32_MAX;
  h->counts[bucket_of(us)]++;
  h->total++;
  if (us > h->max) h->max = us;
}

static double percentile_ms(const struct histogram *h, double p) {
  if (h->total == 0) return -1;
  long long rank = (long long)(p / 100.0 * (double)h->total);
  if (rank >= h->total) rank = h->total - 1;
  long long seen = 0;
  for (int b = 0; b < BUCKETS; b++) {
    seen += (long long)h->counts[b];
    if (seen > rank) return (double)bucket_floor(b) / 1000.0;
  }
  return (double)h->max / 1000.0;
}

struct latency_reader {
  rd_kafka_t *rk;
  int64_t measure_from_ns;
  struct histogram *hist;
  _Atomic long long received;
  _Atomic int stop;
};

static void *read_latencies(void *arg) {
  struct latency_reader *r = arg;
  while (!atomic_load(&r->stop)) {
    rd_kafka_message_t *m = rd_kafka_consumer_poll(r->rk, 100);
    if (!m) continue;
    if (!m->err && m->len >= sizeof(int64_t)) {
      int64_t now = now_ns();
      int64_t due;
      memcpy(&due, m->payload, sizeof due);
      atomic_fetch_add(&r->received, 1);
      if (due >= r->measure_from_ns) record_latency(r->hist, now > due ? (uint64_t)(now - due) / 1000 : 0);
    }
    rd_kafka_message_destroy(m);
  }
  return NULL;
}

static int run_latency(const struct options *o) {
  struct wire pw = {0}, cw = {0};
  rd_kafka_t *prk = producer(o, &pw);
  rd_kafka_topic_t *rkt = rd_kafka_topic_new(prk, o->topic, NULL);
  const struct rd_kafka_metadata *md;
  if (rd_kafka_metadata(prk, 0, rkt, &md, 30000) != RD_KAFKA_RESP_ERR_NO_ERROR) die("metadata", o->topic);
  rd_kafka_metadata_destroy(md);
  long long total = (long long)o->rate * (o->seconds + o->warmup);
  /* Two seconds for the consumer to fetch its first (empty) answers before the first record. */
  int64_t start = now_ns() + 2000000000LL;
  struct latency_reader r = {.rk = consumer(o, &cw), .measure_from_ns = start + (int64_t)o->warmup * 1000000000LL,
                             .hist = calloc(1, sizeof(struct histogram))};
  pthread_t reader;
  pthread_create(&reader, NULL, read_latencies, &r);
  char *payload = malloc((size_t)o->record_size);
  fill_payload(payload, o->record_size);
  double cpu0 = cpu_seconds();
  /*
   * Wake at most every PACE_NS and send every record due by then: sleeping per record would cost
   * ~50,000 wake-ups a second at 50 MB/s, enough to saturate the generator's own core. Each record
   * still carries its own intended time, so the wait until the next tick counts as latency.
   */
  for (long long i = 0; i < total;) {
    int64_t now = now_ns();
    for (; i < total && start + i * 1000000000LL / o->rate <= now; i++) {
      int64_t due = start + i * 1000000000LL / o->rate;
      memcpy(payload, &due, sizeof due);
      while (rd_kafka_produce(rkt, RD_KAFKA_PARTITION_UA, RD_KAFKA_MSG_F_COPY, payload, (size_t)o->record_size, NULL, 0, NULL) == -1) {
        rd_kafka_resp_err_t e = rd_kafka_last_error();
        if (e != RD_KAFKA_RESP_ERR__QUEUE_FULL) die("produce", rd_kafka_err2str(e));
        rd_kafka_poll(prk, 1);
      }
    }
    rd_kafka_poll(prk, 0);
    if (i == total) break;
    int64_t next = start + i * 1000000000LL / o->rate;
    if (next < now + PACE_NS) next = now + PACE_NS;
    struct timespec at = {.tv_sec = next / 1000000000LL, .tv_nsec = next % 1000000000LL};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) == EINTR) {
    }
  }
  rd_kafka_flush(prk, 60000);
  double deadline = now_seconds() + 30;
  while (atomic_load(&r.received) < total && now_seconds() < deadline) {
    struct timespec pause = {.tv_nsec = 20000000};
    nanosleep(&pause, NULL);
  }
  double cpu = cpu_seconds() - cpu0;
  double seconds = (double)(now_ns() - start) / 1e9;
  atomic_store(&r.stop, 1);
  pthread_join(reader, NULL);
  settle_stats(prk, &pw, 0);
  long long received = atomic_load(&r.received);
  printf("{\"mode\":\"latency\",\"records\":%lld,\"bytes\":%lld,\"seconds\":%.3f,\"errors\":%lld,\"sent\":%lld,\"received\":%lld,"
         "\"measured\":%lld,\"p50Ms\":%.3f,\"p99Ms\":%.3f,\"p999Ms\":%.3f,\"maxMs\":%.3f,",
         received, received * o->record_size, seconds, atomic_load(&delivery_errors), total, received, r.hist->total,
         percentile_ms(r.hist, 50), percentile_ms(r.hist, 99), percentile_ms(r.hist, 99.9), r.hist->total ? (double)r.hist->max / 1000.0 : -1);
  struct wire both = {0};
  atomic_store(&both.tx_bytes, atomic_load(&pw.tx_bytes) + atomic_load(&cw.tx_bytes));
  atomic_store(&both.rx_bytes, atomic_load(&pw.rx_bytes) + atomic_load(&cw.rx_bytes));
  print_cpu_and_wire(cpu, &both);
  printf("}\n");
  rd_kafka_consumer_close(r.rk);
  rd_kafka_destroy(r.rk);
  rd_kafka_topic_destroy(rkt);
  rd_kafka_destroy(prk);
  free(r.hist);
  free(payload);
  return received < total ? 1 : 0;
}

static long long positive(const char *flag, const char *v) {
  char *end;
  errno = 0;
  long long n = strtoll(v, &end, 10);
  if (errno || *end || n <= 0) die(flag, "needs a positive whole number");
  return n;
}

static void parse(int argc, char **argv, struct options *o) {
  static const struct option longs[] = {
      {"bootstrap", required_argument, 0, 'b'}, {"topic", required_argument, 0, 't'},      {"records", required_argument, 0, 'n'},
      {"record-size", required_argument, 0, 's'}, {"acks", required_argument, 0, 'a'},     {"compression", required_argument, 0, 'z'},
      {"linger-ms", required_argument, 0, 'l'},   {"batch-size", required_argument, 0, 'B'}, {"partitions", required_argument, 0, 'p'},
      {"rate", required_argument, 0, 'r'},        {"seconds", required_argument, 0, 'd'},   {"warmup", required_argument, 0, 'w'},
      {"set", required_argument, 0, 'X'},         {0, 0, 0, 0}};
  if (argc < 2) die("usage", "loadgen produce|consume|latency --bootstrap B --topic T ...");
  *o = (struct options){.mode = argv[1], .records = 0, .record_size = 1024, .acks = "1", .compression = "none", .linger_ms = "5",
                        .batch_size = "262144", .partitions = 0, .rate = 0, .seconds = 0, .warmup = 0};
  optind = 2;
  for (int c; (c = getopt_long(argc, argv, "", longs, NULL)) != -1;) {
    switch (c) {
      case 'b': o->bootstrap = optarg; break;
      case 't': o->topic = optarg; break;
      case 'n': o->records = positive("--records", optarg); break;
      case 's': o->record_size = (int)positive("--record-size", optarg); break;
      case 'a': o->acks = optarg; break;
      case 'z': o->compression = optarg; break;
      case 'l': o->linger_ms = optarg; break;
      case 'B': o->batch_size = optarg; break;
      case 'p': o->partitions = (int)positive("--partitions", optarg); break;
      case 'r': o->rate = (long)positive("--rate", optarg); break;
      case 'd': o->seconds = (int)positive("--seconds", optarg); break;
      case 'w': o->warmup = atoi(optarg); break;
      case 'X':
        if (o->n_settings == MAX_SETTINGS) die("--set", "too many");
        o->settings[o->n_settings++] = optarg;
        break;
      default: die("unknown option", NULL);
    }
  }
  if (!o->bootstrap || !o->topic) die("usage", "--bootstrap and --topic are required");
}

int main(int argc, char **argv) {
  struct options o;
  parse(argc, argv, &o);
  /* stdout is a pipe to the bench: one line, flushed at exit. */
  if (strcmp(o.mode, "produce") == 0) {
    if (!o.records) die("produce", "needs --records");
    return run_produce(&o);
  }
  if (strcmp(o.mode, "consume") == 0) {
    if (!o.records || !o.partitions) die("consume", "needs --records and --partitions");
    return run_consume(&o);
  }
  if (strcmp(o.mode, "latency") == 0) {
    if (!o.rate || !o.seconds || !o.partitions) die("latency", "needs --rate, --seconds and --partitions");
    if (o.record_size < (int)sizeof(int64_t)) die("latency", "--record-size must hold the 8-byte send time");
    return run_latency(&o);
  }
  die("unknown mode", o.mode);
  return 1;
}
