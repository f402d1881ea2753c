/*
 * bench_sched_options.h - the scheduler benchmark's (bp-bench-scheduler)
 * command line: the load, the setups it compares, and the options every
 * part of it reads.
 */
#ifndef BENCH_SCHED_OPTIONS_H
#define BENCH_SCHED_OPTIONS_H

#define BSCH_MAX_ROUNDS 16

/** The setups compared, in the order of a first round. */
enum {
        BSCH_DEDICATED, /* a consumer per bucket */
        BSCH_STRICT,    /* one consumer of both, strict, hold=pause */
        BSCH_QUEUE,     /* the same, hold=queue (strict's default) */
        BSCH_WEIGHTED,  /* the same, weighted (by pausing) */
        BSCH_WQUEUE,    /* weighted, hold=queue */
        BSCH_PLAIN,     /* a plain consumer of the whole topic */
        BSCH_SETUPS
};

/** "dedicated", "strict", "queue", "weighted", "wqueue", "plain". */
extern const char *const bsch_setup_name[BSCH_SETUPS];

/** The options (defaults until bsch_parse_options()). */
typedef struct bsch_options {
        int rounds, rate, seconds, work_us, busy;
        int fetch_wait_ms; /* -1: 10 on the mock cluster, librdkafka's
                            * default on a broker */
        long bulk;
        const char *plugin, *linger_ms, *only;
        const char *brokers; /* --brokers: a real cluster, not the mock */
        const char *props[16]; /* --prop k=v: for every consumer */
        int prop_cnt;
} bsch_options_t;

extern bsch_options_t bsch_opt;

/** Reads the command line into bsch_opt; prints the usage and exits 2 on
 *  anything it does not accept. */
void bsch_parse_options(int argc, char **argv);

#endif /* BENCH_SCHED_OPTIONS_H */
