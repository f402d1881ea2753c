/*
 * demo_log.c - the ring of narration and warning lines.
 */
#include "demo_log.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "demo_time.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char ring[DEMO_LOG_LINES][DEMO_LOG_WIDTH];
static demo_log_kind_t kinds[DEMO_LOG_LINES];
static unsigned long count;
static long long t0;
/* librdkafka warnings already shown this run (identical workers log the
 * same thing). */
#define SEEN_MAX 32
static char seen[SEEN_MAX][DEMO_LOG_WIDTH];
static int seen_cnt;

/* 1 if \p text was seen this run; else remembers it. */
static int seen_before(const char *text) {
        int i, r = 0;
        pthread_mutex_lock(&lock);
        for (i = 0; i < seen_cnt && !r; i++)
                r = !strcmp(seen[i], text);
        if (!r && seen_cnt < SEEN_MAX)
                snprintf(seen[seen_cnt++], DEMO_LOG_WIDTH, "%s", text);
        pthread_mutex_unlock(&lock);
        return r;
}

void demo_log_reset(long long t0_us) {
        pthread_mutex_lock(&lock);
        count    = 0;
        t0       = t0_us;
        seen_cnt = 0;
        pthread_mutex_unlock(&lock);
}

static void add(demo_log_kind_t kind, const char *text) {
        double t;
        char *line;

        pthread_mutex_lock(&lock);
        t    = (double)(demo_now_us() - t0) / 1e6;
        line = ring[count % DEMO_LOG_LINES];
        /* A line longer than the view is cut to its width, on purpose. */
        if (snprintf(line, DEMO_LOG_WIDTH, "%6.1fs  %s", t < 0 ? 0 : t,
                     text) >= DEMO_LOG_WIDTH)
                line[DEMO_LOG_WIDTH - 1] = '\0';
        kinds[count % DEMO_LOG_LINES] = kind;
        count++;
        pthread_mutex_unlock(&lock);
}

void demo_log(demo_log_kind_t kind, const char *fmt, ...) {
        char text[DEMO_LOG_WIDTH];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(text, sizeof(text), fmt, ap);
        va_end(ap);
        add(kind, text);
}

int demo_log_get(unsigned long seq, char *out, size_t size,
                 demo_log_kind_t *kind) {
        int ok;

        pthread_mutex_lock(&lock);
        ok = seq < count && count - seq <= DEMO_LOG_LINES;
        if (ok) {
                snprintf(out, size, "%s", ring[seq % DEMO_LOG_LINES]);
                if (kind)
                        *kind = kinds[seq % DEMO_LOG_LINES];
        }
        pthread_mutex_unlock(&lock);
        return ok;
}

unsigned long demo_log_count(void) {
        unsigned long n;
        pthread_mutex_lock(&lock);
        n = count;
        pthread_mutex_unlock(&lock);
        return n;
}

void demo_log_rdkafka(const rd_kafka_t *rk, int level, const char *fac,
                      const char *buf) {
        char text[DEMO_LOG_WIDTH + 64], what[DEMO_LOG_WIDTH];
        size_t i;

        if (level > 4)
                return;
        snprintf(what, sizeof(what), "%s: %s", fac, buf);
        if (seen_before(what))
                return;
        snprintf(text, sizeof(text), "%s %s", rk ? rd_kafka_name(rk) : "",
                 what);
        for (i = 0; text[i]; i++)
                if ((unsigned char)text[i] < 0x20 || text[i] == 0x7f)
                        text[i] = ' ';
        add(DEMO_LOG_WARN, text);
}
