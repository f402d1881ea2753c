"""broker_ops.py - the broker suite's "operations" scenario: the procedures
of docs/operations.md and docs/layout-change.md that need a broker, run
with the very commands the docs show. The docs mark them with an HTML
comment after their ```sh block:

  <!-- docs-test: broker=lag -->     lag per bucket (one describe command)
  <!-- docs-test: broker=rename -->  copy a renamed bucket's group offsets

and this file takes the commands from there (tests/docs/test_docs.py fails
when a kafka-consumer-groups.sh block of the docs has no such mark).
kafka-consumer-groups.sh becomes `kafka.sh tool` with Kafka's
ConsumerGroupCommand class, broker:9092 the broker under test, and the
topic "orders" (also the start of the group names) a name of this run.

  1. 1000 records keyed gold-N to bucket gold of "Platinum, gold"
     (70%, 30%, 6 partitions: gold is 4-5); a consumer of gold reads them
     all and stops (commits).
  2. 1000 more records to gold; the doc's lag command, for the old group,
     shows partitions 4 and 5 only, 1000 records of lag between them.
  3. The doc's rename commands copy orders-app.gold's offsets to
     orders-app.Gold.
  4. A consumer of the renamed bucket Gold ("Platinum, Gold",
     auto.offset.reset=earliest, which would re-read the first 1000 had the
     offsets not been copied) reads exactly ids 1000-1999, each once.
  5. The doc's lag command (orders-app.Gold): partitions 4 and 5, lag 0.
"""
import os
import shlex
import subprocess

DOCS = [os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                     "docs", name)
        for name in ("operations.md", "layout-change.md")]
TOOL_CLASS = "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand"
BATCH = 1000


def doc_commands(mark):
    """The commands of the ```sh block of operations.md or layout-change.md
    marked broker=MARK (continuation lines joined)."""
    lines = []
    for doc in DOCS:
        with open(doc, encoding="utf-8") as f:
            lines += f.read().split("\n") + [""]
    for i, line in enumerate(lines):
        if line.strip() != "<!-- docs-test: broker=%s -->" % mark:
            continue
        end = i - 1
        while end >= 0 and not lines[end].strip():
            end -= 1
        start = end - 1
        while start >= 0 and not lines[start].strip().startswith("```"):
            start -= 1
        text = "\n".join(l.strip() for l in lines[start + 1:end])
        return [c for c in text.replace("\\\n", " ").split("\n")
                if c.strip() and not c.strip().startswith("#")]
    raise RuntimeError("neither docs/operations.md nor docs/layout-change.md "
                       "has a block marked broker=%s" % mark)


def run_doc_command(s, env, cmd, topic, workdir):
    """Runs one command of the doc; returns its stdout."""
    argv = shlex.split(cmd)
    out_file = None
    if ">" in argv:
        k = argv.index(">")
        out_file = os.path.join(workdir, argv[k + 1])
        argv = argv[:k]
    if argv[0] != "kafka-consumer-groups.sh":
        raise s.Failure("operations.md/layout-change.md: unexpected command %s"
                        % argv[0])
    argv = [env.kafka_sh, "tool", TOOL_CLASS] + [
        env.bootstrap if a == "broker:9092" else a.replace("orders", topic)
        for a in argv[1:]]
    s.log("doc command: " + " ".join(shlex.quote(a) for a in argv[2:]))
    r = subprocess.run(argv, capture_output=True, text=True, timeout=120,
                       cwd=workdir)
    if r.returncode:
        raise s.Failure("`%s` exits %d: %s" % (cmd, r.returncode,
                                                r.stderr.strip()[-2000:]))
    if out_file:
        with open(out_file, "w") as f:
            f.write(r.stdout)
    return r.stdout


def lag_rows(text, group):
    """{partition: lag} of the describe output's rows for group."""
    rows = {}
    for line in text.splitlines():
        w = line.split()
        if len(w) >= 6 and w[0] == group and w[2].isdigit():
            rows[int(w[2])] = int(w[5]) if w[5].isdigit() else None
    return rows


def read_ids(consumer):
    ids = []
    for line in consumer.tail.lines():
        ids.append(int(line.split()[0]))
    return ids


def consume_until(s, env, name, topic, bucket, buckets, group, want):
    """A consumer of one bucket that runs until it has read want records
    (and 3 s more for any extra one), then stops (commits)."""
    c = s.Consumer(env, name, topic, "contiguous", bucket, group,
                   reset="earliest", buckets=buckets,
                   allocation="70%, 30%")
    ids = []

    def read_all():           # or exited: its exit code is checked below
        ids.extend(read_ids(c))
        return len(ids) >= want or not c.alive()
    try:
        s.wait_until("%s to read %d records" % (name, want), 90, read_all,
                     missing=lambda: "%d read" % len(ids))
    except s.Failure as e:    # the caller names what was read and what not
        s.log(str(e))
    # Records beyond the expected ones (read twice, or from before the
    # rename when the offsets were not copied) come after them: only a
    # window of time can show that none does.
    s.quiet_window(3, "records beyond the %d expected, if any, are read"
                   % want)
    ids += read_ids(c)
    rc = c.stop(60)
    ids += read_ids(c)
    s.log("%s: exit %d, %d records read, %s" % (name, rc, len(ids),
                                               c.summary()))
    if rc:
        raise s.Failure("%s exits %d (log %s)" % (name, rc, c.log_path))
    return ids


def run(s, env, report):
    """s: the broker_suite module (processes, Failure, log)."""
    topic = s.unique("orders")
    group = topic + "-app"            # orders-app in the doc
    workdir = env.workdir
    env.admin("create", topic=topic, partitions=6)
    gold = "Platinum, gold"
    for start in (0, BATCH):
        pr = s.Producer(env, "producer-%d" % start, topic, "contiguous",
                        start=start, count=BATCH, buckets=gold,
                        allocation="70%, 30%", key_bucket="gold")
        if pr.p.wait(120) or pr.summary_fields().get("failed") != "0":
            raise s.Failure("producer %s: %s" % (pr.name, pr.summary()))
        if start == 0:
            first = consume_until(s, env, "consumer-gold", topic, "gold", gold,
                                  group, BATCH)
            if sorted(first) != list(range(BATCH)):
                raise s.Failure("the old group read %d records, not ids "
                                "0-%d once each" % (len(first), BATCH - 1))

    lag_cmd = doc_commands("lag")
    if len(lag_cmd) != 1:
        raise s.Failure("broker=lag: expected one command, got %r" % lag_cmd)
    old_lag = lag_rows(run_doc_command(
        s, env, lag_cmd[0].replace("orders-app.Gold", "orders-app.gold"),
        topic, workdir), group + ".gold")
    report.add("lag of the old group before the rename (doc's lag command): "
               "%s" % old_lag, old_group_lag=sum(old_lag.values()))
    if set(old_lag) != {4, 5} or sum(old_lag.values()) != BATCH:
        report.error("old group's lag %s: expected partitions 4 and 5 with "
                     "%d records between them" % (old_lag, BATCH))

    for cmd in doc_commands("rename"):
        run_doc_command(s, env, cmd, topic, workdir)

    second = consume_until(s, env, "consumer-Gold", topic, "Gold",
                           "Platinum, Gold", group, BATCH)
    again = sorted(i for i in second if i < BATCH)
    missing = sorted(set(range(BATCH, 2 * BATCH)) - set(second))
    dups = len(second) - len(set(second))
    report.add("renamed group read %d records: %d re-read from before the "
               "rename, %d skipped, %d duplicates"
               % (len(second), len(again), len(missing), dups),
               renamed_read=len(second), reread=len(again),
               skipped=len(missing), duplicates=dups)
    if again or missing or dups:
        report.error("the renamed group did not start at the old group's "
                     "offsets: re-read %s, skipped %s, duplicates %d"
                     % (again[:10], missing[:10], dups))

    new_lag = lag_rows(run_doc_command(s, env, lag_cmd[0], topic, workdir),
                       group + ".Gold")
    report.add("lag of the renamed group at the end (doc's lag command): %s"
               % new_lag, new_group_lag=sum(v or 0 for v in new_lag.values()))
    if new_lag != {4: 0, 5: 0}:
        report.error("renamed group's lag %s: expected partitions 4 and 5, "
                     "lag 0" % new_lag)
