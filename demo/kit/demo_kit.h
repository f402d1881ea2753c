/*
 * demo_kit.h - the demo kit: the pieces of the teaching demo that the
 * priority benchmark (bench/bench_priority*.c) reuses, built once as the
 * static library bp_demo_kit (demo/kit/) and linked by bp-demo
 * and bp-bench-priority. Include this header for all of them:
 *
 *   demo_time.h      one monotonic microsecond clock, sleeping (both the
 *                    test kit's, tests/kit/testkit.h), pacing
 *   demo_hist.h      latency histograms and their percentiles
 *   demo_stats.h     per-bucket counters shared by producers and consumers
 *   demo_log.h       the event log shown under the live view
 *   demo_cluster.h   the test kit's mock cluster or a real one, topics by
 *                    Admin API
 *   demo_conf.h      client configurations, the plugin by properties
 *   demo_producer.h  the record format (id, class, send time) and producers
 *   demo_thread.h    starting and stopping the producer and consumer threads
 *   demo_svg.h       the SVG charts of the HTML reports
 *
 * The demo's own parts (options, runs, consumers, scheduler, view, report)
 * stay in bp-demo.
 */
#ifndef DEMO_KIT_H
#define DEMO_KIT_H

#include "demo_cluster.h"
#include "demo_conf.h"
#include "demo_hist.h"
#include "demo_log.h"
#include "demo_producer.h"
#include "demo_stats.h"
#include "demo_svg.h"
#include "demo_thread.h"
#include "demo_time.h"

#endif /* DEMO_KIT_H */
