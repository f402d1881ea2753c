/*
 * bp_mock_cluster.c - runs librdkafka's embedded mock cluster as a process
 * for tests written in other languages: creates the topics given as
 * NAME:PARTITIONS arguments, prints the bootstrap address on one line, and
 * serves until its standard input closes.
 *
 *   bp-mock-cluster orders:12 other:4
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

int main(int argc, char **argv) {
        char errstr[512], name[250];
        rd_kafka_conf_t *conf = rd_kafka_conf_new();
        rd_kafka_mock_cluster_t *mc;
        rd_kafka_t *rk;
        int i, partitions;

        rd_kafka_conf_set(conf, "log_level", "3", errstr, sizeof(errstr));
        rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof(errstr));
        if (!rk || !(mc = rd_kafka_mock_cluster_new(rk, 1))) {
                fprintf(stderr, "bp-mock-cluster: cannot start: %s\n", errstr);
                return 1;
        }
        for (i = 1; i < argc; i++) {
                if (sscanf(argv[i], "%249[^:]:%d", name, &partitions) != 2 ||
                    partitions < 1 ||
                    rd_kafka_mock_topic_create(mc, name, partitions, 1)) {
                        fprintf(stderr,
                                "bp-mock-cluster: bad topic \"%s\": expected "
                                "NAME:PARTITIONS\n",
                                argv[i]);
                        return 2;
                }
        }
        printf("%s\n", rd_kafka_mock_cluster_bootstraps(mc));
        fflush(stdout);
        while (getchar() != EOF)
                ;
        rd_kafka_mock_cluster_destroy(mc);
        rd_kafka_destroy(rk);
        return 0;
}
