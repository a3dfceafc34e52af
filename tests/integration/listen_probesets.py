# SPDX-License-Identifier: MIT
"""Every shipped probeset that can run here, served by --listen: Python,
pysample, Ruby, Java, PHP, io and process on Debian's runtimes, Pony,
Erlang and Node on the fixture that declares their providers (by -b, so
rows carry a command label), C++ exceptions through libstdc++, and
PostgreSQL 15 by -b under pgbench (a server of the test's own). For each,
`promtool check metrics` passes on the text format, OpenMetrics carries
the same samples, and known counts come out exact under the names
probetop_<probeset>_<section>_<role> with the probeset's labels."""

import os
import subprocess
import tempfile

from pgcluster import BIN, POSTGRES, Cluster, need_postgres
from scrape import OPENMETRICS, get, parse, promtool_check, series, url_in, \
    wait_intervals
from tap import FIXTURE_DIR, Tap, Target, Trace, need_root

tap = Tap()
need_root(tap)
HERE = os.path.dirname(os.path.abspath(__file__))
PY = "/usr/bin/python3.11"


def scraped(name, tr, extra=2):
    """Scrape tr after `extra` more intervals: promtool on the text,
    OpenMetrics compared with it; returns the text's samples."""
    url = url_in("".join(tr.err))
    if not tap.ok(url is not None, "%s: the URL is said" % name,
                  "".join(tr.err)):
        return {}
    text = wait_intervals(url, extra)
    tap.eq(promtool_check(text), (0, ""),
           "%s: promtool check metrics finds nothing" % name)
    _, _, om = get(url, accept=OPENMETRICS)
    samples = parse(text)[0]
    # the snapshot may move on between the two scrapes: compare names
    # and labels, and values where nothing moved
    tap.eq(sorted(parse(om)[0]), sorted(samples),
           "%s: OpenMetrics has the same series" % name)
    tap.ok(om.endswith("# EOF\n"), "%s: OpenMetrics ends in # EOF" % name)
    return samples


def attached(name, argv, args, send="go", env=None):
    """Start argv (it says ready, works after one line), trace it by -p
    with --listen; scrape once it has worked. (samples, reply)"""
    t = Target(argv, env=env)
    tr = Trace(["-p", str(t.pid), "-i", "0.2", "--budget", "off",
                "--listen", "127.0.0.1:0"] + args, env=env)
    reply = t.send(send).split()
    samples = scraped(name, tr)
    tr.finish()
    t.stop()
    return samples, reply, t.pid


def total(samples, name, **match):
    return sum(int(v) for v in series(samples, name, **match).values())


with tempfile.TemporaryDirectory() as tmp:
    # -- python ------------------------------------------------------------
    script = os.path.join(tmp, "work.py")
    with open(script, "w") as f:
        f.write("""\
import gc, sys
gc.disable()
def leaf(x): return x + 1
def mid(n):
    t = 0
    for i in range(n):
        t += leaf(i)
    return t
class Node: pass
def cycles(k):
    for _ in range(k):
        a = Node(); b = Node(); a.b = b; b.a = a
def work():
    for _ in range(10):
        mid(30)
    got = []
    for gen, k in ((0, 5), (0, 7), (1, 3), (1, 0), (1, 2), (2, 11), (2, 0)):
        cycles(k)
        got.append(gc.collect(gen))
    return got
print("ready", flush=True)
sys.stdin.readline()
print("done", *work(), flush=True)
sys.stdin.readline()
""")
    s, reply, pid = attached("python", [PY, script], ["-P", "python"])
    tap.eq(series(s, "probetop_python_frames_calls_total", file=script,
                  function="leaf"),
           {(("line", "3"),): "300"},
           "python: calls per function, labels function/file/line, exact")
    tap.eq(series(s, "probetop_python_gc_pause_seconds_count"),
           {(("generation", "0"),): "2", (("generation", "1"),): "3",
            (("generation", "2"),): "2"},
           "python: GC pauses per generation, a histogram in seconds")
    tap.eq(series(s, "probetop_python_gc_collected_total"),
           {(): str(sum(int(x) for x in reply[1:]))},
           "python: objects collected, a counter of the sum")

    # -- pysample: profile:99 samples by Python frame --------------------
    spin = os.path.join(tmp, "spin.py")
    with open(spin, "w") as f:
        f.write("import sys, time\n"
                "def spin():\n"
                "    end = time.time() + 1.5\n"
                "    while time.time() < end: pass\n"
                "print('ready', flush=True)\nsys.stdin.readline()\n"
                "spin()\nprint('done', flush=True)\nsys.stdin.readline()\n")
    s, reply, pid = attached("pysample", [PY, spin], ["-P", "pysample"])
    frames = series(s, "probetop_pysample_frames_samples_total")
    tap.ok(any(dict(k).get("function") == "spin" and
               dict(k).get("file") == spin for k in frames),
           "pysample: samples labelled function/file/line", frames)
    tap.eq(sum(int(v) for v in frames.values()),
           int(s.get(("probetop_spec_events_total",
                      (("metric", "probetop_pysample_frames_samples"),)),
                     -1)),
           "pysample: the rows add up to the spec's events")
    stacks = series(s, "probetop_pysample_stacks_samples_total")
    tap.ok(any(dict(k).get("stack", "").endswith("spin") for k in stacks),
           "pysample: stacks labelled stack (folded, root first)", stacks)

    # -- ruby --------------------------------------------------------------
    rb = os.path.join(tmp, "work.rb")
    with open(rb, "w") as f:
        f.write("class Foo; end\nSTDOUT.sync = true\nputs 'ready'\n"
                "STDIN.gets\n700.times { Foo.new }\n5.times { GC.start }\n"
                "puts 'done'\nSTDIN.gets\n")
    s, reply, pid = attached("ruby", ["ruby3.1", "--disable-gems", rb],
                             ["-P", "ruby"])
    tap.eq((series(s, "probetop_ruby_alloc_objects_total", **{"class":
                                                             "Foo"}),
            series(s, "probetop_ruby_gc_pause_seconds_count")),
           ({(): "700"}, {(): "5"}), "ruby: objects by class, GC marks")

    # -- java --------------------------------------------------------------
    subprocess.run(["javac", "-d", tmp, os.path.join(HERE, "GcWork.java")],
                   check=True)
    s, reply, pid = attached("java", ["java", "-Xms64m", "-Xmx64m",
                                      "-XX:+UseSerialGC", "-cp", tmp,
                                      "GcWork", "7", "wait"],
                             ["-P", "java"])
    tap.eq(total(s, "probetop_java_gc_pause_seconds_count"), 7,
           "java: 7 collections for 7 System.gc()")

    # -- php ---------------------------------------------------------------
    php = os.path.join(tmp, "work.php")
    with open(php, "w") as f:
        f.write("<?php\nfunction leaf($x) { return $x + 1; }\n"
                "function mid($n) { $t = 0; for ($i = 0; $i < $n; $i++) "
                "$t += leaf($i); return $t; }\n"
                "echo \"ready\\n\"; fgets(STDIN);\n"
                "for ($k = 0; $k < 10; $k++) mid(30);\n"
                "for ($k = 0; $k < 3; $k++) { try { throw new "
                "RuntimeException('x'); } catch (Exception $e) {} }\n"
                "echo \"done\\n\";\nfgets(STDIN);\n")
    env = dict(os.environ, USE_ZEND_DTRACE="1")
    s, reply, pid = attached("php", ["php8.2", php], ["-P", "php"], env=env)
    tap.eq((series(s, "probetop_php_frames_calls_total", file=php,
                   function="leaf"),
            series(s, "probetop_php_exceptions_thrown_total")),
           ({(("line", "2"),): "300"},
            {(("class", "RuntimeException"),): "3"}),
           "php: calls per function, exceptions by class")

    # -- process and io: the kernel's counts ---------------------------------
    spawn = os.path.join(tmp, "spawn.py")
    with open(spawn, "w") as f:
        f.write("import os, subprocess, sys\nprint('ready', flush=True)\n"
                "sys.stdin.readline()\n"
                "for _ in range(5):\n    subprocess.run(['/bin/true'])\n"
                "subprocess.run(['/bin/sh', '-c', 'exit 3'])\n"
                "fd = os.open('/dev/null', os.O_WRONLY)\n"
                "for _ in range(20):\n    os.pwrite(fd, b'x' * 100, 0)\n"
                "print('done', flush=True)\nsys.stdin.readline()\n")
    s, reply, pid = attached("process+io", [PY, spawn],
                             ["-P", "process", "-P", "io"])
    ev = series(s, "probetop_process_events_total")
    tap.eq((ev.get((("event", "exec"), ("name", "/bin/true"))),
            ev.get((("code", "0"), ("event", "exit"), ("name", "true"))),
            ev.get((("code", "3"), ("event", "exit"), ("name", "sh")))),
           ("5", "5", "1"), "process: execs by file, exits by status")
    tap.eq(series(s, "probetop_process_lifetime_seconds_count",
                  event="exit", name="true"), {(("code", "0"),): "5"},
           "process: lifetimes as a histogram, exact _count")
    # pwrite: only the workload's own, 20 of 100 bytes
    tap.eq((series(s, "probetop_io_calls_total", pid=pid,
                   **{"class": "pwrite"}),
            series(s, "probetop_io_bytes_total", pid=pid,
                   **{"class": "pwrite"}),
            series(s, "probetop_io_latency_seconds_count", pid=pid,
                   **{"class": "pwrite"})),
           ({(): "20"}, {(): "2000"}, {(): "20"}),
           "io: the target's pwrites: calls, bytes, timed calls exact")

    # -- libstdcxx -----------------------------------------------------------
    s, reply, pid = attached("libstdcxx",
                             [os.path.join(FIXTURE_DIR, "cxxthrow")],
                             ["-P", "libstdcxx"])
    tap.eq(series(s, "probetop_libstdcxx_exceptions_thrown_total"),
           {(("type", "std::runtime_error"),): "5",
            (("type", "app::Oops"),): "3", (("type", "int"),): "2"},
           "libstdcxx: exceptions by type (sym())")

# -- pony, erlang, node: by -b on the fixture, rows carry their command -------
RT = os.path.join(FIXTURE_DIR, "runtimes")
for rt in ("pony", "erlang", "node"):
    tr = Trace(["-b", RT, "-P", rt, "-i", "0.2", "--budget", "off",
                "--listen", "127.0.0.1:0"])
    run = subprocess.run([RT, rt, "20"], capture_output=True, timeout=60)
    s = scraped(rt, tr)
    tr.finish()
    cmd = "runtimes %s 20" % rt
    if rt == "pony":
        got = (series(s, "probetop_pony_gc_pause_seconds_count",
                      command=cmd),
               series(s, "probetop_pony_messages_sent_total", command=cmd))
        want = ({(): "20"}, {(("message_id", str(i)),): str(n)
                             for i, n in ((0, 7), (1, 7), (2, 6))})
    elif rt == "erlang":
        got = (series(s, "probetop_erlang_frames_calls_total", command=cmd),
               series(s, "probetop_erlang_processes_spawned_total",
                      command=cmd))
        want = ({(("mfa", "gen:call/4"),): "10",
                 (("mfa", "lists:seq/2"),): "10"},
                {(("mfa_or_reason", "proc_lib:init_p/5"),): "20"})
    else:
        got = (series(s, "probetop_node_http_requests_total", command=cmd),
               series(s, "probetop_node_gc_pause_seconds_count",
                      command=cmd))
        want = ({(("method", "GET"), ("url", "/a")): "10",
                 (("method", "POST"), ("url", "/b")): "10"},
                {(("type", "1"),): "10", (("type", "2"),): "10"})
    tap.eq(got, want, "%s -b: exact, labelled by the probeset and the "
                      "command" % rt, s)

# -- postgresql: every backend by -b, pgbench's queries and commits --------
need_postgres(tap)
with Cluster() as pg:
    init = pg.run([BIN + "/pgbench", "-i", "-q", pg.db])
    tap.eq(init.returncode, 0, "postgresql: pgbench -i", init.stderr)
    tr = Trace(["-b", POSTGRES, "-P", "postgresql", "-i", "0.2",
                "--budget", "off", "--listen", "127.0.0.1:0"])
    bench = pg.run([BIN + "/pgbench", "-S", "-M", "simple", "-c", "2", "-t",
                    "50", pg.db])
    tap.eq(bench.returncode, 0, "postgresql: pgbench ran", bench.stderr)
    s = scraped("postgresql", tr)
    tr.finish()
    # one row a statement over every backend (allpids, pid "all")
    selects = sum(int(v) for (n, k), v in s.items()
                  if n == "probetop_postgresql_frames_calls_total" and
                  dict(k).get("query", "").startswith(
                      "SELECT abalance FROM pgbench_accounts WHERE aid = "))
    calls = series(s, "probetop_postgresql_frames_calls_total")
    tap.eq(selects, 100, "postgresql: pgbench's SELECTs labelled query, "
           "exact across backends", calls)
    tap.eq(sum(int(v) for (n, k), v in s.items()
               if n == "probetop_postgresql_frames_latency_seconds_count" and
               dict(k).get("query", "").startswith("SELECT abalance")),
           100, "postgresql: their latency histograms' _count, exact")
tap.done()
