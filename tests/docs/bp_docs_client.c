/*
 * bp_docs_client.c - applies a properties block copied from the docs, line
 * by line through rd_kafka_conf_set() as an application reading a
 * properties file does, then creates the client on a (mock) cluster and
 * reports what the block did, for tests/docs/test_docs.py:
 *
 *   bp-docs-client producer|consumer FILE --bootstrap B --topic T
 *                  [--get NAME]... [--key KEY]... [--records N]
 *
 * FILE is read like a Java properties file: blank lines and lines starting
 * with '#' or '!' are skipped, the name ends at the first '=', and the value
 * is everything after it (leading spaces dropped, nothing else: an inline
 * "# comment" becomes part of the value, as in Java). bootstrap.servers is
 * set to B after the block. The producer writes to topic T, the consumer
 * subscribes to it. Output, one line each:
 *
 *   conf NAME VALUE        --get: the configuration value before creation
 *   route KEY P,P,...      producer: partitions the records with KEY reached
 *   failed KEY ERROR       producer: a record whose delivery failed
 *   assignment P,P,...     consumer: its assignment once it has one
 *   log LEVEL FAC MESSAGE  every log line of the client
 *
 * Exit status 0 when every line was accepted and the client ran; 1 with an
 * "error ..." line otherwise.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <librdkafka/rdkafka.h>

#define MAX_ARGS 16
#define MAX_PARTITIONS 256

typedef struct {
        const char *role, *file, *bootstrap, *topic;
        const char *get[MAX_ARGS], *key[MAX_ARGS];
        int gets, keys, records;
} options_t;

/* Partitions reached per key (index = the key's position in --key). */
static int reached[MAX_ARGS][MAX_PARTITIONS];

static void on_log(const rd_kafka_t *rk, int level, const char *fac,
                   const char *buf) {
        (void)rk;
        printf("log %d %s %s\n", level, fac, buf);
        fflush(stdout);
}

static void on_delivery(rd_kafka_t *rk, const rd_kafka_message_t *m,
                        void *opaque) {
        const options_t *o = opaque;
        intptr_t k         = (intptr_t)m->_private;
        (void)rk;
        if (m->err)
                printf("failed %s %s\n", o->key[k], rd_kafka_err2str(m->err));
        else if (m->partition >= 0 && m->partition < MAX_PARTITIONS)
                reached[k][m->partition] = 1;
}

static int parse_options(int argc, char **argv, options_t *o) {
        int i;
        memset(o, 0, sizeof(*o));
        o->records = 32;
        if (argc < 3 || (strcmp(argv[1], "producer") &&
                         strcmp(argv[1], "consumer")))
                return -1;
        o->role = argv[1];
        o->file = argv[2];
        for (i = 3; i + 1 < argc; i += 2) {
                if (!strcmp(argv[i], "--bootstrap"))
                        o->bootstrap = argv[i + 1];
                else if (!strcmp(argv[i], "--topic"))
                        o->topic = argv[i + 1];
                else if (!strcmp(argv[i], "--get") && o->gets < MAX_ARGS)
                        o->get[o->gets++] = argv[i + 1];
                else if (!strcmp(argv[i], "--key") && o->keys < MAX_ARGS)
                        o->key[o->keys++] = argv[i + 1];
                else if (!strcmp(argv[i], "--records"))
                        o->records = atoi(argv[i + 1]);
                else
                        return -1;
        }
        return i == argc && o->bootstrap && o->topic && o->records > 0 ? 0
                                                                     : -1;
}

/* Applies FILE's lines; -1 (after an "error" line) on the first refusal. */
static int apply_file(rd_kafka_conf_t *conf, const char *file) {
        char line[4096], errstr[512];
        int no = 0, rc = 0;
        FILE *f = fopen(file, "r");

        if (!f) {
                printf("error cannot open %s\n", file);
                return -1;
        }
        while (!rc && fgets(line, sizeof(line), f)) {
                char *name = line, *value, *end;
                no++;
                line[strcspn(line, "\r\n")] = '\0';
                name += strspn(name, " \t");
                if (!*name || *name == '#' || *name == '!')
                        continue;
                if (!(value = strchr(name, '='))) {
                        printf("error line %d: no '=' in \"%s\"\n", no, name);
                        rc = -1;
                        break;
                }
                for (end = value; end > name && (end[-1] == ' ' ||
                                                  end[-1] == '\t');)
                        end--;
                *end = '\0';
                value++;
                value += strspn(value, " \t");
                if (rd_kafka_conf_set(conf, name, value, errstr,
                                      sizeof(errstr)) != RD_KAFKA_CONF_OK) {
                        printf("error line %d: %s=%s refused: %s\n", no, name,
                               value, errstr);
                        rc = -1;
                }
        }
        fclose(f);
        return rc;
}

static void print_partitions(const char *what, const char *key,
                             const int *set) {
        int p, first = 1;
        printf("%s%s%s ", what, key ? " " : "", key ? key : "");
        for (p = 0; p < MAX_PARTITIONS; p++)
                if (set[p]) {
                        printf("%s%d", first ? "" : ",", p);
                        first = 0;
                }
        printf("%s\n", first ? "-" : "");
}

static int run_producer(rd_kafka_t *rk, const options_t *o,
                        const char *topic) {
        intptr_t k;
        int r;
        for (k = 0; k < o->keys; k++)
                for (r = 0; r < o->records; r++) {
                        rd_kafka_resp_err_t err = rd_kafka_producev(
                            rk, RD_KAFKA_V_TOPIC(topic),
                            RD_KAFKA_V_KEY(o->key[k], strlen(o->key[k])),
                            RD_KAFKA_V_VALUE("docs", 4),
                            RD_KAFKA_V_OPAQUE((void *)k),
                            RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                            RD_KAFKA_V_END);
                        if (err) {
                                printf("failed %s %s\n", o->key[k],
                                       rd_kafka_err2str(err));
                                return -1;
                        }
                }
        if (rd_kafka_flush(rk, 30000)) {
                printf("error records not delivered within 30 s\n");
                return -1;
        }
        for (k = 0; k < o->keys; k++)
                print_partitions("route", o->key[k], reached[k]);
        return 0;
}

static int run_consumer(rd_kafka_t *rk, const char *topic) {
        rd_kafka_topic_partition_list_t *sub =
            rd_kafka_topic_partition_list_new(1), *got = NULL;
        int set[MAX_PARTITIONS] = {0}, i, rc = -1;
        time_t deadline = time(NULL) + 60;

        rd_kafka_poll_set_consumer(rk);
        rd_kafka_topic_partition_list_add(sub, topic, RD_KAFKA_PARTITION_UA);
        if (rd_kafka_subscribe(rk, sub)) {
                printf("error cannot subscribe to %s\n", topic);
                rd_kafka_topic_partition_list_destroy(sub);
                return -1;
        }
        rd_kafka_topic_partition_list_destroy(sub);
        while (time(NULL) < deadline) {
                rd_kafka_message_t *m = rd_kafka_consumer_poll(rk, 200);
                if (m)
                        rd_kafka_message_destroy(m);
                if (rd_kafka_assignment(rk, &got))
                        break;
                if (got->cnt > 0) {
                        for (i = 0; i < got->cnt; i++)
                                if (got->elems[i].partition >= 0 &&
                                    got->elems[i].partition < MAX_PARTITIONS)
                                        set[got->elems[i].partition] = 1;
                        print_partitions("assignment", NULL, set);
                        rc = 0;
                }
                rd_kafka_topic_partition_list_destroy(got);
                got = NULL;
                if (!rc)
                        break;
        }
        if (rc)
                printf("error no assignment within 60 s\n");
        rd_kafka_consumer_close(rk);
        return rc;
}

int main(int argc, char **argv) {
        options_t o;
        char errstr[512], value[512];
        size_t size;
        rd_kafka_conf_t *conf;
        rd_kafka_t *rk;
        int i, rc;

        if (parse_options(argc, argv, &o)) {
                fprintf(stderr,
                        "usage: bp-docs-client producer|consumer FILE "
                        "--bootstrap B --topic T [--get NAME]... [--key KEY]... "
                        "[--records N]\n");
                return 2;
        }
        conf = rd_kafka_conf_new();
        rd_kafka_conf_set_log_cb(conf, on_log);
        rd_kafka_conf_set_opaque(conf, &o);
        if (apply_file(conf, o.file) ||
            rd_kafka_conf_set(conf, "bootstrap.servers", o.bootstrap, errstr,
                              sizeof(errstr)) != RD_KAFKA_CONF_OK) {
                rd_kafka_conf_destroy(conf);
                return 1;
        }
        for (i = 0; i < o.gets; i++) {
                size = sizeof(value);
                if (rd_kafka_conf_get(conf, o.get[i], value, &size) !=
                    RD_KAFKA_CONF_OK)
                        snprintf(value, sizeof(value), "(unknown)");
                printf("conf %s %s\n", o.get[i], value);
        }
        if (!strcmp(o.role, "producer"))
                rd_kafka_conf_set_dr_msg_cb(conf, on_delivery);
        rk = rd_kafka_new(strcmp(o.role, "producer") ? RD_KAFKA_CONSUMER
                                                      : RD_KAFKA_PRODUCER,
                          conf, errstr, sizeof(errstr));
        if (!rk) {
                printf("error rd_kafka_new: %s\n", errstr);
                rd_kafka_conf_destroy(conf);
                return 1;
        }
        rc = strcmp(o.role, "producer") ? run_consumer(rk, o.topic)
                                        : run_producer(rk, &o, o.topic);
        rd_kafka_destroy(rk);
        fflush(stdout);
        return rc ? 1 : 0;
}
