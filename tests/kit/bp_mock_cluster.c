/*
 * bp_mock_cluster.c - runs librdkafka's embedded mock cluster as a process
 * for tests written in other languages: creates the topics given as
 * NAME:PARTITIONS arguments, prints the bootstrap address on one line, and
 * serves until its standard input closes.
 *
 *   bp-mock-cluster orders:12 other:4
 */
#include <stdio.h>

#include "testkit.h"

int main(int argc, char **argv) {
        char err[512], name[250];
        tk_mock_t mc;
        int i, partitions;

        if (tk_mock_start(&mc, NULL, 1, err, sizeof(err))) {
                fprintf(stderr, "bp-mock-cluster: cannot start: %s\n", err);
                return 1;
        }
        for (i = 1; i < argc; i++) {
                if (sscanf(argv[i], "%249[^:]:%d", name, &partitions) != 2 ||
                    partitions < 1 ||
                    tk_mock_topic(&mc, name, partitions, err, sizeof(err))) {
                        fprintf(stderr,
                                "bp-mock-cluster: bad topic \"%s\": expected "
                                "NAME:PARTITIONS\n",
                                argv[i]);
                        tk_mock_stop(&mc);
                        return 2;
                }
        }
        printf("%s\n", mc.bootstraps);
        fflush(stdout);
        while (getchar() != EOF)
                ;
        tk_mock_stop(&mc);
        return 0;
}
