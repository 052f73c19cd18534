/*
 * `sluice tune --client librdkafka`: librdkafka's producer (the C library, unmodified) driven for
 * one cell of the sweep. Compiled on first use against the system's librdkafka (Debian's
 * librdkafka-dev): cc -O2 -o tune-driver tune-driver.c -lrdkafka -lpthread
 * It speaks the line protocol of src/tune/driver-protocol.ts: setup and `run` lines on stdin, JSON
 * lines on stdout, among them librdkafka's statistics JSON verbatim, which the sweep adds up.
 */
#include <errno.h>
#include <librdkafka/rdkafka.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_PROPS 256
#define HIST_BUCKETS (128 + 64 * 57)
/* How long the end-to-end consumer may take, after the flush, to see every record. */
#define DRAIN_NS 10000000000LL
#define STATS_INTERVAL_MS "100"

struct props {
  char *keys[MAX_PROPS];
  char *values[MAX_PROPS];
  int n;
};

/* Microsecond latencies bucketed as driver-protocol.ts's latencyBucket: exact below 128, then 64 steps per power of two. */
struct histogram {
  uint64_t counts[HIST_BUCKETS];
};

struct run_state {
  struct histogram send_ack;
  int64_t acknowledged;
  int64_t failed;
  int64_t last_ack_ns;
  char first_error[512];
  long id;
  int flushed;
  int stats_after_flush;
};

struct consumer_state {
  rd_kafka_t *rk;
  struct histogram latency;
  atomic_llong consumed;
  atomic_int stop;
};

static char *bootstrap;
static char *topic;
static struct props producer_props, consumer_props;

static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int bucket_index(uint64_t v) {
  if (v < 128) return (int)v;
  int e = 63 - __builtin_clzll(v);
  return 128 + (e - 7) * 64 + (int)((v >> (e - 6)) - 64);
}

static uint64_t bucket_value(int i) {
  if (i < 128) return (uint64_t)i;
  int e = (i - 128) / 64 + 7;
  return ((uint64_t)((i - 128) % 64 + 64)) << (e - 6);
}

static void record_latency(struct histogram *h, int64_t ns) {
  h->counts[bucket_index(ns < 0 ? 0 : (uint64_t)(ns / 1000))]++;
}

static void print_histogram(const struct histogram *h) {
  int first = 1;
  putchar('[');
  for (int i = 0; i < HIST_BUCKETS; i++) {
    if (h->counts[i] == 0) continue;
    printf("%s[%llu,%llu]", first ? "" : ",", (unsigned long long)bucket_value(i), (unsigned long long)h->counts[i]);
    first = 0;
  }
  putchar(']');
}

static void print_string(const char *s) {
  putchar('"');
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') printf("\\%c", *s);
    else if ((unsigned char)*s < 0x20) printf("\\u%04x", *s);
    else putchar(*s);
  }
  putchar('"');
}

static void fail(const char *message) {
  printf("{\"type\":\"error\",\"message\":");
  print_string(message);
  printf("}\n");
  fflush(stdout);
  exit(1);
}

static void add_prop(struct props *p, const char *key_value) {
  const char *eq = strchr(key_value, '=');
  if (eq == NULL) fail("a property line is not key=value");
  if (p->n == MAX_PROPS) fail("too many properties");
  p->keys[p->n] = strndup(key_value, (size_t)(eq - key_value));
  p->values[p->n] = strdup(eq + 1);
  p->n++;
}

static int has_prop(const struct props *p, const char *key) {
  for (int i = 0; i < p->n; i++)
    if (strcmp(p->keys[i], key) == 0) return 1;
  return 0;
}

static rd_kafka_conf_t *make_conf(const struct props *p, char *error, size_t error_size) {
  rd_kafka_conf_t *conf = rd_kafka_conf_new();
  if (rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap, error, error_size) != RD_KAFKA_CONF_OK) return NULL;
  for (int i = 0; i < p->n; i++) {
    if (rd_kafka_conf_set(conf, p->keys[i], p->values[i], error, error_size) != RD_KAFKA_CONF_OK) {
      rd_kafka_conf_destroy(conf);
      return NULL;
    }
  }
  return conf;
}

static void on_delivery(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque) {
  (void)rk;
  struct run_state *s = opaque;
  int64_t at = now_ns();
  if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
    record_latency(&s->send_ack, at - (int64_t)(intptr_t)m->_private);
    s->acknowledged++;
    if (at > s->last_ack_ns) s->last_ack_ns = at;
  } else {
    if (s->failed++ == 0) snprintf(s->first_error, sizeof s->first_error, "%s", rd_kafka_err2str(m->err));
  }
}

/* Called from rd_kafka_poll on this thread, so stdout is not shared with another writer. */
static int on_stats(rd_kafka_t *rk, char *json, size_t len, void *opaque) {
  (void)rk;
  struct run_state *s = opaque;
  printf("{\"type\":\"stats\",\"id\":%ld,\"json\":", s->id);
  for (size_t i = 0; i < len; i++) putchar(json[i] == '\n' ? ' ' : json[i]);
  printf("}\n");
  if (s->flushed) s->stats_after_flush = 1;
  return 0;
}

static void *consume(void *arg) {
  struct consumer_state *c = arg;
  while (!atomic_load(&c->stop)) {
    rd_kafka_message_t *m = rd_kafka_consumer_poll(c->rk, 100);
    if (m == NULL) continue;
    int64_t at = now_ns();
    if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR && m->len >= 8) {
      const unsigned char *v = m->payload;
      int64_t intended = 0;
      for (int i = 0; i < 8; i++) intended = (intended << 8) | v[i];
      record_latency(&c->latency, at - intended);
      atomic_fetch_add(&c->consumed, 1);
    }
    rd_kafka_message_destroy(m);
  }
  return NULL;
}

/* A consumer of every partition from its current end (asked explicitly, so no record of the run is missed). */
static rd_kafka_t *start_consumer(int partitions) {
  char error[512];
  rd_kafka_conf_t *conf = make_conf(&consumer_props, error, sizeof error);
  if (conf == NULL) fail(error);
  if (!has_prop(&consumer_props, "group.id")) rd_kafka_conf_set(conf, "group.id", "sluice-tune-end-to-end", error, sizeof error);
  rd_kafka_conf_set(conf, "enable.auto.commit", "false", error, sizeof error);
  rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, error, sizeof error);
  if (rk == NULL) fail(error);
  rd_kafka_poll_set_consumer(rk);
  rd_kafka_topic_partition_list_t *list = rd_kafka_topic_partition_list_new(partitions);
  for (int p = 0; p < partitions; p++) {
    int64_t low, high;
    rd_kafka_resp_err_t err = rd_kafka_query_watermark_offsets(rk, topic, p, &low, &high, 10000);
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) fail(rd_kafka_err2str(err));
    rd_kafka_topic_partition_list_add(list, topic, p)->offset = high;
  }
  rd_kafka_resp_err_t err = rd_kafka_assign(rk, list);
  rd_kafka_topic_partition_list_destroy(list);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) fail(rd_kafka_err2str(err));
  return rk;
}

static void run(long id, double seconds, double rate, int record_size, int end_to_end) {
  char error[512];
  struct run_state *s = calloc(1, sizeof *s);
  s->id = id;
  rd_kafka_conf_t *conf = make_conf(&producer_props, error, sizeof error);
  if (conf == NULL) fail(error);
  if (!has_prop(&producer_props, "statistics.interval.ms")) rd_kafka_conf_set(conf, "statistics.interval.ms", STATS_INTERVAL_MS, error, sizeof error);
  rd_kafka_conf_set_dr_msg_cb(conf, on_delivery);
  rd_kafka_conf_set_stats_cb(conf, on_stats);
  rd_kafka_conf_set_opaque(conf, s);
  rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, error, sizeof error);
  if (rk == NULL) fail(error);
  rd_kafka_topic_t *rkt = rd_kafka_topic_new(rk, topic, NULL);
  /* Metadata first, as a long-running producer has it: the first send must not wait for it. */
  const struct rd_kafka_metadata *md;
  rd_kafka_resp_err_t err = rd_kafka_metadata(rk, 0, rkt, &md, 10000);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) fail(rd_kafka_err2str(err));
  int partitions = md->topic_cnt == 1 ? md->topics[0].partition_cnt : 0;
  rd_kafka_metadata_destroy(md);
  if (partitions == 0) fail("the topic has no partitions in the metadata");

  struct consumer_state *c = NULL;
  pthread_t consumer_thread;
  if (end_to_end) {
    c = calloc(1, sizeof *c);
    c->rk = start_consumer(partitions);
    pthread_create(&consumer_thread, NULL, consume, c);
  }

  unsigned char *value = malloc((size_t)record_size);
  unsigned char *payload = malloc((size_t)record_size);
  for (int i = 0; i < record_size; i++) payload[i] = (unsigned char)('A' + rand() % 26);
  int64_t start = now_ns();
  int64_t end = start + (int64_t)(seconds * 1e9);
  int64_t sent = 0;
  for (;; sent++) {
    int64_t now = now_ns();
    int64_t intended;
    if (rate > 0) {
      intended = start + (int64_t)((double)sent * 1e9 / rate);
      if (intended >= end) break;
      while ((now = now_ns()) < intended) {
        rd_kafka_poll(rk, 0);
        int64_t wait = intended - now;
        struct timespec t = {wait / 1000000000LL, wait % 1000000000LL};
        nanosleep(&t, NULL);
      }
    } else {
      intended = now;
      if (now >= end) break;
    }
    memcpy(value, payload, (size_t)record_size);
    for (int i = 0; i < 8 && i < record_size; i++) value[i] = (unsigned char)((uint64_t)intended >> (56 - 8 * i));
    while (rd_kafka_produce(rkt, RD_KAFKA_PARTITION_UA, RD_KAFKA_MSG_F_COPY, value, (size_t)record_size, NULL, 0, (void *)(intptr_t)intended) == -1) {
      rd_kafka_resp_err_t e = rd_kafka_last_error();
      if (e != RD_KAFKA_RESP_ERR__QUEUE_FULL) fail(rd_kafka_err2str(e));
      rd_kafka_poll(rk, 1);
    }
    rd_kafka_poll(rk, 0);
  }
  rd_kafka_flush(rk, 120000);
  /* One more statistics emission, so the batches of the flush are counted too. */
  s->flushed = 1;
  for (int64_t deadline = now_ns() + 5000000000LL; !s->stats_after_flush && now_ns() < deadline;) rd_kafka_poll(rk, 20);
  double elapsed = (double)((s->last_ack_ns > start ? s->last_ack_ns : start) - start) / 1e9;

  long long consumed = 0;
  if (c != NULL) {
    for (int64_t deadline = now_ns() + DRAIN_NS; atomic_load(&c->consumed) < s->acknowledged && now_ns() < deadline;) {
      struct timespec t = {0, 5000000};
      nanosleep(&t, NULL);
    }
    atomic_store(&c->stop, 1);
    pthread_join(consumer_thread, NULL);
    consumed = atomic_load(&c->consumed);
    rd_kafka_consumer_close(c->rk);
    rd_kafka_destroy(c->rk);
  }

  printf("{\"type\":\"result\",\"id\":%ld,\"sent\":%lld,\"acknowledged\":%lld,\"failed\":%lld,\"firstError\":", id, (long long)sent,
         (long long)s->acknowledged, (long long)s->failed);
  if (s->failed > 0) print_string(s->first_error);
  else printf("null");
  printf(",\"elapsedSeconds\":%.6f,\"sendAckUs\":", elapsed);
  print_histogram(&s->send_ack);
  printf(",\"consumed\":%lld,\"endToEndUs\":", consumed);
  if (c != NULL) print_histogram(&c->latency);
  else printf("null");
  printf(",\"metrics\":{}}\n");
  fflush(stdout);

  rd_kafka_topic_destroy(rkt);
  rd_kafka_destroy(rk);
  free(value);
  free(payload);
  free(c);
  free(s);
}

int main(void) {
  setvbuf(stdout, NULL, _IOFBF, 1 << 16);
  printf("{\"type\":\"hello\",\"client\":\"librdkafka %s\"}\n", rd_kafka_version_str());
  fflush(stdout);
  char *line = NULL;
  size_t capacity = 0;
  ssize_t length;
  while ((length = getline(&line, &capacity, stdin)) != -1) {
    while (length > 0 && (line[length - 1] == '\n' || line[length - 1] == '\r')) line[--length] = '\0';
    if (length == 0) continue;
    char *rest = strchr(line, ' ');
    if (rest != NULL) *rest++ = '\0';
    else rest = line + length;
    if (strcmp(line, "bootstrap") == 0) bootstrap = strdup(rest);
    else if (strcmp(line, "topic") == 0) topic = strdup(rest);
    else if (strcmp(line, "producer") == 0) add_prop(&producer_props, rest);
    else if (strcmp(line, "consumer") == 0) add_prop(&consumer_props, rest);
    else if (strcmp(line, "run") == 0) {
      long id;
      double seconds, rate;
      int size, e2e;
      if (sscanf(rest, "%ld %lf %lf %d %d", &id, &seconds, &rate, &size, &e2e) != 5) fail("a run line needs: id seconds rate record-size e2e");
      if (bootstrap == NULL || topic == NULL) fail("run before bootstrap and topic");
      run(id, seconds, rate, size, e2e);
    } else fail("unknown line");
  }
  free(line);
  return 0;
}
