#!/usr/bin/env python3
"""test_docs.py - the docs as a new user follows them (ctest test_docs).

1. Every ```properties block of README.md, docs/*.md and demo/README.md is
   applied line by line through rd_kafka_conf_set() (bp-docs-client, the
   plugin loaded by the very plugin.library.paths the block names) against
   a mock cluster, and must be accepted with the effect the text states. The
   effect is written in an HTML comment right after the block:

     <!-- docs-test: consumer partitions=6 group=orders-app.Gold assignment=4-5 -->

   producer|consumer  the client the block configures
   partitions=N       the topic's partition count on the mock cluster
   route=KEY:P        producer: records keyed KEY reach exactly partitions P
   group=G            the effective group.id before the client is created
   conf=NAME:VALUE    any other configuration value before creation
   assignment=P       consumer: the partitions it is assigned
   name=X / base=X    a block that adds lines to block X (X's lines first)
   min-librdkafka=V   applied only when the client runs librdkafka V or
                      later (older ones refuse the block, as the text says)

   P is a list of partitions and ranges: 0-3, 4,5 or 0-2,7. A property line
   with an inline comment ("Gold   # first") fails by itself: a properties
   file has none, the comment would become part of the value.
2. Every ```console block: each "$ COMMAND" line (bp-layout, bp-demo --help)
   is run and its output must equal the lines shown after it. Every
   bp-layout command in a ```sh block runs and exits 0. demo/run.sh --help
   answers without building and lists bp-demo's options. A block of
   another kind that shows "$ bp-..." fails (mark it ```console). A ```sh
   block with kafka-consumer-groups.sh must be in docs/operations.md or
   docs/layout-change.md and marked <!-- docs-test: broker=NAME --> with a
   NAME the broker suite's "operations" scenario runs
   (tests/broker/broker_ops.py).
3. Every relative link and anchor in README.md, docs/, demo/README.md,
   tests/broker/README.md and bench/README.md resolves: the file exists,
   the anchor is a heading's slug as GitHub makes it.

Usage: test_docs.py --root SRC --client BIN --mock-cluster BIN --plugin SO
                    --layout-bin BIN --demo-bin BIN
"""
import argparse
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

ROOT = "."      # the source tree, set by main()
# The marks tests/broker/broker_ops.py runs on a real broker, and the docs
# it reads them from.
BROKER_MARKS = ("lag", "rename")
BROKER_DOCS = ("operations.md", "layout-change.md")
FENCE = re.compile(r"^(\s*)(```+)\s*([\w-]*)\s*$")
MARKER = re.compile(r"^\s*<!--\s*docs-test:(.*?)-->\s*$")


class Block:
    def __init__(self, path, line, lang, lines, marker):
        self.path, self.line, self.lang = path, line, lang
        self.lines, self.marker = lines, marker

    def where(self):
        return "%s:%d" % (os.path.relpath(self.path, ROOT), self.line)


def read_blocks(path):
    """Fenced blocks of a markdown file, with the docs-test marker that
    follows each (the next non-blank line), if any."""
    with open(path, encoding="utf-8") as f:
        text = f.read().split("\n")
    blocks, i = [], 0
    while i < len(text):
        m = FENCE.match(text[i])
        if not m:
            i += 1
            continue
        indent, fence, lang = m.group(1), m.group(2), m.group(3)
        start, body = i + 1, []
        i += 1
        while i < len(text) and text[i].strip() != fence:
            line = text[i]
            body.append(line[len(indent):] if line.startswith(indent)
                        else line.lstrip())
            i += 1
        i += 1
        j = i
        while j < len(text) and not text[j].strip():
            j += 1
        mk = MARKER.match(text[j]) if j < len(text) else None
        blocks.append(Block(path, start, lang, body,
                            mk.group(1).split() if mk else None))
    return blocks


def parse_partitions(text):
    out = set()
    for part in text.split(","):
        if "-" in part:
            a, b = part.split("-")
            out.update(range(int(a), int(b) + 1))
        else:
            out.add(int(part))
    return out


def property_lines(lines):
    """(name, value) of a properties block, values as Java reads them."""
    out = []
    for raw in lines:
        s = raw.lstrip()
        if not s or s[0] in "#!":
            continue
        name, _, value = s.partition("=")
        out.append((name.strip(), value.lstrip()))
    return out


# --------------------------------------------------------- 1. properties --

def check_properties(a, files, errors):
    blocks = [b for f in files for b in read_blocks(f)
              if b.lang == "properties"]
    named = {}
    for b in blocks:
        if b.marker is None:
            errors.append("%s: properties block without a <!-- docs-test: "
                          "... --> line after it stating its effect"
                          % b.where())
            continue
        spec = {"route": [], "conf": []}
        for tok in b.marker:
            if tok in ("producer", "consumer"):
                spec["role"] = tok
                continue
            k, _, v = tok.partition("=")
            if k in ("route", "conf"):
                spec[k].append(v)
            else:
                spec[k] = v
        if "name" in spec:
            named[spec["name"]] = b
        b.spec = spec
    checked = 0
    for b in blocks:
        if b.marker is None:
            continue
        for name, value in property_lines(b.lines):
            if re.search(r"\s#", value):
                errors.append("%s: %s=%s: inline comment; a properties file "
                              "has none (the comment becomes part of the "
                              "value): put it on a line of its own"
                              % (b.where(), name, value))
        lines = list(b.lines)
        base = b.spec.get("base")
        if base:
            if base not in named:
                errors.append("%s: base=%s names no block" % (b.where(), base))
                continue
            lines = list(named[base].lines) + lines
        if "role" not in b.spec:
            errors.append("%s: docs-test line names no producer/consumer"
                          % b.where())
            continue
        errors.extend(apply_block(a, b, lines))
        checked += 1
    print("properties blocks: %d found, %d applied" % (len(blocks), checked))


def client_librdkafka(a):
    """The librdkafka version (a tuple) the docs client runs on."""
    import ctypes
    lib = "librdkafka.so.1"
    r = subprocess.run(["ldd", a.client], capture_output=True, text=True)
    for line in r.stdout.splitlines():
        w = line.split()
        if w and w[0] == "librdkafka.so.1" and len(w) > 2:
            lib = w[2]
    f = ctypes.CDLL(lib).rd_kafka_version_str
    f.restype = ctypes.c_char_p
    return tuple(int(x) for x in f().decode().split("-")[0].split(".")[:3])


def apply_block(a, b, lines):
    spec = b.spec
    need = spec.get("min-librdkafka")
    if need and client_librdkafka(a) < tuple(int(x)
                                             for x in need.split(".")):
        print("%s: skipped, needs librdkafka %s" % (b.where(), need))
        return []
    props = dict(property_lines(lines))
    topic = props.get("bucket.priority.topic")
    if not topic:
        return ["%s: the block sets no bucket.priority.topic" % b.where()]
    partitions = int(spec.get("partitions", "6"))
    gets = {}
    if "group" in spec:
        gets["group.id"] = spec["group"]
    for c in spec["conf"]:
        n, _, v = c.partition(":")
        gets[n] = v
    routes = [r.rpartition(":") for r in spec["route"]]
    with tempfile.TemporaryDirectory() as tmp:
        pf = os.path.join(tmp, "block.properties")
        with open(pf, "w") as f:
            f.write("\n".join(lines) + "\n")
        mock = subprocess.Popen([a.mock_cluster, "%s:%d" % (topic, partitions)],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                text=True)
        try:
            bootstrap = mock.stdout.readline().strip()
            args = [a.client, spec["role"], pf, "--bootstrap", bootstrap,
                    "--topic", topic]
            for n in gets:
                args += ["--get", n]
            for key, _, _ in routes:
                args += ["--key", key]
            env = dict(os.environ)
            env["LD_LIBRARY_PATH"] = os.path.dirname(a.plugin) + (
                ":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH")
                else "")
            r = subprocess.run(args, capture_output=True, text=True, env=env,
                               timeout=120)
        finally:
            mock.stdin.close()
            mock.wait(30)
    out = r.stdout.splitlines()
    errs = []
    fails = [l for l in out if l.startswith(("error ", "failed "))]
    if r.returncode or fails:
        errs.append("%s: the block as written is not accepted: %s" % (
            b.where(), "; ".join(fails) or "exit %d %s" % (r.returncode,
                                                           r.stderr.strip())))
        return errs
    for l in out:
        w = l.split(" ", 3)
        if w[0] == "log" and w[2] == "BUCKETPRIO" and int(w[1]) <= 4:
            errs.append("%s: the plugin logged: %s" % (b.where(), w[3]))
    got = {}
    for l in out:
        w = l.split(" ", 2)
        if w[0] == "conf":
            got[w[1]] = w[2] if len(w) > 2 else ""
        elif w[0] in ("route", "assignment"):
            key = w[1] if w[0] == "route" else None
            parts = w[-1]
            got[(w[0], key)] = set() if parts == "-" else parse_partitions(parts)
    for n, want in gets.items():
        if got.get(n) != want:
            errs.append("%s: %s is \"%s\", the text says \"%s\""
                        % (b.where(), n, got.get(n), want))
    for key, _, want in routes:
        if got.get(("route", key)) != parse_partitions(want):
            errs.append("%s: records keyed %s reached partitions %s, the text "
                        "says %s" % (b.where(), key,
                                     sorted(got.get(("route", key), ())), want))
    if "assignment" in spec and \
            got.get(("assignment", None)) != parse_partitions(spec["assignment"]):
        errs.append("%s: the consumer was assigned %s, the text says %s"
                    % (b.where(), sorted(got.get(("assignment", None), ())),
                       spec["assignment"]))
    return errs


# ----------------------------------------------------------- 2. commands --

def program(a, argv):
    """The built binary for a command shown in the docs, or None."""
    name = os.path.basename(argv[0])
    if name == "bp-layout":
        return [a.layout_bin] + argv[1:]
    if name == "bp-demo" and argv[1:] == ["--help"]:
        return [a.demo_bin, "--help"]
    return None


def check_commands(a, files, errors):
    ran = 0
    for f in files:
        for b in read_blocks(f):
            if b.lang == "console":
                ran += check_console(a, b, errors)
                continue
            if any(l.startswith("$ bp-") or l.startswith("$ build/bin/bp-")
                   for l in b.lines):
                errors.append("%s: a command with its output: mark the block "
                              "```console so that the output is checked"
                              % b.where())
            if b.lang in ("sh", "bash") and \
                    any("kafka-consumer-groups.sh" in l for l in b.lines):
                mark = [t for t in b.marker or () if t.startswith("broker=")]
                if not any(f.endswith(os.path.join("docs", d))
                           for d in BROKER_DOCS) or \
                        len(mark) != 1 or mark[0][7:] not in BROKER_MARKS:
                    errors.append("%s: kafka-consumer-groups.sh commands are "
                                  "run on a broker only in docs/%s"
                                  " blocks marked <!-- docs-test: broker=%s "
                                  "-->" % (b.where(),
                                           " or docs/".join(BROKER_DOCS),
                                           "|".join(BROKER_MARKS)))
            if b.lang in ("sh", "bash"):
                for line in b.lines:
                    cmd = line.split("#")[0].strip()
                    if not re.match(r"^(build/bin/)?bp-layout\s", cmd):
                        continue
                    r = subprocess.run(program(a, shlex.split(cmd)),
                                       capture_output=True, text=True)
                    ran += 1
                    if r.returncode:
                        errors.append("%s: `%s` exits %d: %s" % (
                            b.where(), cmd, r.returncode, r.stderr.strip()))
    print("commands shown in the docs: %d run" % ran)


def check_console(a, b, errors):
    runs, cur = [], None
    for line in b.lines:
        if line.startswith("$ "):
            cur = (line[2:], [])
            runs.append(cur)
        elif cur is None:
            errors.append("%s: console block does not start with \"$ \""
                          % b.where())
            return 0
        else:
            cur[1].append(line)
    for cmd, shown in runs:
        argv = program(a, shlex.split(cmd))
        if argv is None:
            errors.append("%s: `%s`: test_docs.py does not know this "
                          "command (bp-layout, bp-demo --help)"
                          % (b.where(), cmd))
            continue
        r = subprocess.run(argv, capture_output=True, text=True)
        real = (r.stdout + r.stderr).rstrip("\n").split("\n")
        want = "\n".join(shown).rstrip("\n").split("\n")
        if r.returncode or real != want:
            diff = next((i for i, (x, y) in enumerate(zip(real, want))
                         if x != y), min(len(real), len(want)))
            errors.append(
                "%s: `%s` (exit %d) prints, from line %d:\n  real: %s\n  "
                "docs: %s" % (b.where(), cmd, r.returncode, diff + 1,
                              real[diff] if diff < len(real) else "(end)",
                              want[diff] if diff < len(want) else "(end)"))
    return len(runs)


def options_of(text):
    """The option lines of a usage text (from the first "  --")."""
    lines = text.rstrip("\n").split("\n")
    first = next((i for i, l in enumerate(lines) if l.startswith("  --")),
                 len(lines))
    return lines[first:]


def check_run_sh_help(a, errors):
    """demo/run.sh --help answers without installing or building: run from
    a copy of the script alone, where any build step would fail."""
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "demo"))
        script = os.path.join(tmp, "demo", "run.sh")
        shutil.copy(os.path.join(a.root, "demo", "run.sh"), script)
        r = subprocess.run([script, "--help"], capture_output=True, text=True,
                           timeout=30)
        built = os.path.exists(os.path.join(tmp, "build"))
    demo = subprocess.run([a.demo_bin, "--help"], capture_output=True,
                          text=True)
    if r.returncode or built or not r.stdout.startswith("usage:"):
        errors.append("demo/run.sh --help: exit %d, build/ made: %s, "
                      "output %r" % (r.returncode, built, r.stdout[:200]))
    elif options_of(r.stdout) != options_of(demo.stdout + demo.stderr):
        errors.append("demo/run.sh --help lists other options than "
                      "bp-demo --help (demo/demo_options.c)")
    else:
        print("demo/run.sh --help: answers without building, bp-demo's "
              "options")


# -------------------------------------------------------------- 3. links --

LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def prose_lines(path):
    """(line number, text) outside fenced blocks, inline code removed."""
    out, fence = [], None
    with open(path, encoding="utf-8") as f:
        for no, line in enumerate(f, 1):
            m = FENCE.match(line.rstrip("\n"))
            if m and (fence is None or m.group(2) == fence):
                fence = None if fence else m.group(2)
                continue
            if fence is None:
                out.append((no, re.sub(r"`[^`]*`", "", line)))
    return out


def slugs(path):
    """GitHub's anchors for the headings of a markdown file."""
    seen, out = {}, set()
    for _, line in prose_lines_raw(path):
        m = re.match(r"^(#{1,6})\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", m.group(2))
        s = re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")
        n = seen.get(s, 0)
        seen[s] = n + 1
        out.add(s if n == 0 else "%s-%d" % (s, n))
    return out


def prose_lines_raw(path):
    """(line number, text) outside fenced blocks, inline code kept."""
    out, fence = [], None
    with open(path, encoding="utf-8") as f:
        for no, line in enumerate(f, 1):
            line = line.rstrip("\n")
            m = FENCE.match(line)
            if m and (fence is None or m.group(2) == fence):
                fence = None if fence else m.group(2)
                continue
            if fence is None:
                out.append((no, line))
    return out


def check_links(a, files, errors):
    n = 0
    for f in files:
        for no, line in prose_lines(f):
            for m in LINK.finditer(line):
                target = m.group(1)
                if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                    continue            # http:, https:, mailto:
                n += 1
                path, _, anchor = target.partition("#")
                dest = os.path.normpath(os.path.join(os.path.dirname(f),
                                                     path)) if path else f
                where = "%s:%d" % (os.path.relpath(f, a.root), no)
                if not os.path.exists(dest):
                    errors.append("%s: link %s: %s does not exist"
                                  % (where, target,
                                     os.path.relpath(dest, a.root)))
                elif anchor and dest.endswith(".md") and \
                        anchor not in slugs(dest):
                    errors.append("%s: link %s: no heading of %s has the "
                                  "anchor #%s" % (where, target,
                                                  os.path.relpath(dest, a.root),
                                                  anchor))
    print("relative links: %d checked" % n)


def main():
    p = argparse.ArgumentParser()
    for opt in ("root", "client", "mock-cluster", "plugin", "layout-bin",
                "demo-bin"):
        p.add_argument("--" + opt, required=True)
    a = p.parse_args()
    global ROOT
    root = os.path.abspath(a.root)
    a.root = ROOT = root
    md = lambda *names: [os.path.join(root, n) for n in names]
    docs = sorted(glob.glob(os.path.join(root, "docs", "*.md")))
    props_files = md("README.md") + docs + md("demo/README.md")
    all_files = props_files + md("tests/broker/README.md", "bench/README.md")
    errors = []
    check_properties(a, props_files, errors)
    check_commands(a, all_files, errors)
    check_run_sh_help(a, errors)
    check_links(a, all_files, errors)
    for e in errors:
        print("FAIL " + e)
    print("%d problems" % len(errors))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
