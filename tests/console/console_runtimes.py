#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The console on each of Debian's runtimes, launched with -- COMMAND in a
real terminal (tmux): Top shows the runtime's frames, the GC pane its
collections, and the Probes view says why a probe is silent. PHP without
USE_ZEND_DTRACE=1: Top shows its functions from CPU samples (the
phpsample probeset: phpframe), Stacks its PHP stacks (phpstack) and the
GC pane its cycle collector (a function probe); the same for a plain
Ruby 3.1, whose method probes never fire (rubysample: rbframe, rbstack).
Erlang (no probes in Debian's OTP 25) started with +JPperf true: Top
shows its Erlang functions from CPU samples (erlsample: jitframe),
Stacks their stacks; started plainly, Top shows them too (the BEAM's
own JIT tables), with no hint.
Where a runtime gives no frames (Java without -XX:+DTraceMethodProbes),
Top and Messages say why and what would, and Stacks offers native
stacks (a). Node (no probes in Debian's 20): Top shows its CPU samples
(nodesample: jitframe), its JavaScript functions named started plainly
(V8's own metadata) and with --perf-basic-prof. Python 3.11: a function
returning from several lines is one row at its first line, exact calls
said in the title, and its latency (AVG, P50, P99) once Enter on it has
attached it; the --demo test of console_tmux.py shows the rest."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..",
                                "integration"))
from console_tmux import PROBETOP, SESSION, keys, start, tmux, \
    wait_screen  # noqa: E402
from tap import Tap, need_root  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def quit_ok(tap, what):
    """q ends the console and the command it launched."""
    pid = int(re.search(r"pid (\d+)", wait_screen(r"pid \d+")).group(1))
    keys("q")
    s = wait_screen(r"EXITED \d+")
    tap.ok("EXITED 0" in s and not os.path.exists("/proc/%d" % pid),
           "%s: q quits with status 0 and ends the command" % what, s)


# cb returns from three lines: one row at its def line (2), and with the
# probeset's latency on (Enter, Enter), its AVG, P50 and P99
CB = """\
import time
def cb(i):
    if i % 3 == 0:
        return 0
    if i % 3 == 1:
        return 1
    return 2
def handle(n):
    t = 0
    for i in range(n):
        t += cb(i)
    return t
while True:
    handle(300)
    time.sleep(0.002)
"""


def test_python(tap, script):
    start("%s --budget off -- /usr/bin/python3.11 %s" % (PROBETOP, script),
          130, 30)
    try:
        keys("3")
        row = r"│ +[\d,.]+ +[\d,]+ +- +cb +cb\.py:2 "
        s = wait_screen(row, 15)
        tap.ok(re.search(row, s) and len(re.findall(r" cb +cb\.py:", s)) == 1
               and "Top frames, exact calls" in s,
               "python3.11: cb, returning from three lines, is one row at "
               "its first line; the title says exact calls", s)
        keys("g", "Enter")  # the hottest row: cb
        s = wait_screen(r"latency per frame is not measured", 5)
        keys("Enter")
        s = wait_screen(r"cb /\S+/cb\.py 2  count [\d,]+", 10)
        tap.ok("latency(str(arg1),str(arg0),pyfirstline)" in s and
               re.search(r"cb /\S+/cb\.py 2  count [\d,]+", s),
               "python3.11: Enter, Enter: cb's latency by its first line",
               s)
        keys("3")
        row = (r"│ +[\d,.]+ +[\d,]+ +[\d.]+[nµm]?s +[\d.]+[nµm]?s +"
               r"[\d.]+[nµm]?s +cb +cb\.py:2 ")
        s = wait_screen(row, 10)
        tap.ok(re.search(row, s) is not None,
               "python3.11: Top's cb row has its AVG, P50 and P99", s)
        quit_ok(tap, "python3.11")
    finally:
        tmux("kill-session", "-t", SESSION)


def test_ruby(tap, script):
    """A plain ruby3.1 (its method probes silent: bug #14582): Top shows
    its hot methods from CPU samples (rubysample: rbframe), Stacks its
    Ruby stacks (rbstack), the GC pane its collections."""
    start("%s -- ruby3.1 --disable-gems %s" % (PROBETOP, script))
    try:
        s = wait_screen(r"(mid|leaf) +loop\.rb:[23]", 20)
        tap.ok("Top frames, CPU samples" in s and
               re.search(r"leaf +loop\.rb:2", s) is not None,
               "ruby: Top shows its hot methods from CPU samples "
               "(rubysample)", s)
        s = wait_screen(r"gc: \d+(\.\d)?/s", 10)
        tap.ok("pause p50" in s, "ruby: the GC pane shows collections "
                                 "and mark pauses", s)
        keys("2", "/", "ruby:method__entry", "Enter")
        s = wait_screen(r"14582")
        tap.ok("14582" in s, "ruby: Probes says why method__entry is "
                             "silent", s)
        keys("Escape", "1", "7")
        s = wait_screen(r"Stacks, profile:99=count\(rbstack\)"
                        r"(.*\n)+│<main>(.*\n)+│mid", 10)
        tap.ok(re.search(r"Stacks, profile:99=count\(rbstack\)"
                         r"(.*\n)+│<main>(.*\n)+│mid", s) is not None,
               "ruby: Stacks shows its Ruby stacks (<main> over mid)", s)
        keys("1")
        quit_ok(tap, "ruby")
    finally:
        tmux("kill-session", "-t", SESSION)


def test_java(tap, classes):
    start("%s -- java -XX:+DTraceMethodProbes -XX:+UseSerialGC -cp %s "
          "GcWork 100000 slow" % (PROBETOP, classes))
    try:
        s = wait_screen(r"GcWork\.fire", 30)
        tap.ok("Top frames" in s and "GcWork.fire" in s,
               "java -XX:+DTraceMethodProbes: Top shows Java frames "
               "(class.method)", s)
        s = wait_screen(r"full=1 \d+(\.\d)?/s", 10)
        tap.ok("pause p50" in s, "java: the GC pane shows collections "
                                 "and pauses", s)
        quit_ok(tap, "java")
    finally:
        tmux("kill-session", "-t", SESSION)


def test_java_plain(tap, classes):
    """A JVM started without -XX:+DTraceMethodProbes: Top shows its CPU
    samples (javasample: probetop asked the JVM for its perf map), and
    the Probes view says why its method probes are silent."""
    start("%s -- java -XX:+UseSerialGC -cp %s GcWork 100000 slow"
          % (PROBETOP, classes))
    try:
        s = wait_screen(r"Top frames, CPU samples(.*\n)+│ +[0-9.]+ +[0-9]+ ", 30)
        tap.ok("Top frames, CPU samples" in s,
               "java without -XX:+DTraceMethodProbes: Top shows its CPU "
               "samples (javasample)", s)
        keys("2", "/", "method__return", "Enter")
        s = wait_screen(r"started without -XX:\+DTraceMethodProbes")
        tap.ok(re.search(r"will not fire: this process was started "
                         r"without\s", s) is not None,
               "java without -XX:+DTraceMethodProbes: Probes says why its "
               "method probes are silent", s)
        keys("Escape", "1")
        quit_ok(tap, "java")
    finally:
        tmux("kill-session", "-t", SESSION)


HOT = """\
public class Hot {
    static long heavy(long n) {
        long s = 0;
        for (long i = 0; i < n; i++) s += i % 7;
        return s;
    }

    static long light(long n) {
        long s = 0;
        for (long i = 0; i < n; i++) s += i % 7;
        return s;
    }

    public static void main(String[] a) {
        long t = 0;
        while (t != 42) { t += heavy(3000000); t += light(1000000); }
    }
}
"""


def test_java_hot(tap, classes):
    """A plain JVM spinning 3:1 in heavy() and light(), compiled by C2:
    Top shows both methods from CPU samples, heavy() first; Stacks shows
    them under main(), with lines, through the compiled frames."""
    start("%s -- java -cp %s Hot" % (PROBETOP, classes))
    try:
        s = wait_screen(r"long Hot\.light\(long\)", 30)
        top = re.findall(r"│ +[0-9.]+ +[0-9]+ +[0-9.]+% +(long Hot\.\w+\(long\))",
                         s)
        tap.eq(top[:2], ["long Hot.heavy(long)", "long Hot.light(long)"],
               "java: Top shows its hot methods, heavy() first", s)
        keys("7")
        s = wait_screen(r"│void Hot\.main[^\n]*\n│long Hot\.heavy\(long\) "
                        r"\(Hot\.java:4\)", 15)
        tap.ok(re.search(r"│StubRoutines \(1\)[^\n]*\n│void Hot\.main"
                         r"[^\n]*\n│long Hot\.heavy\(long\) \(Hot\.java:4\)"
                         r"[^\n]*\|long Hot\.light", s) is not None,
               "java: Stacks shows heavy() (at its loop's line) and light() "
               "under main(), under the call stub", s)
        keys("1")
        quit_ok(tap, "java")
    finally:
        tmux("kill-session", "-t", SESSION)


def messages_say(tap, what, pattern):
    """Messages (L) has pattern; back to the Dashboard."""
    keys("L")
    s = wait_screen(pattern, 5)
    tap.ok(re.search(pattern, s) is not None,
           "%s: Messages says why Top has no frames" % what, s)
    keys("1")


def test_node(tap):
    """Debian's Node 20 has no probes: nodesample samples it. Started
    plainly, Top names its JavaScript functions (V8's own metadata) and
    Stacks shows its stacks; with --perf-basic-prof, Top names them
    too."""
    hot = ("function hot(n) { let s = 0; for (let i = 0; i < n; i++) "
           "s += i %% 7; return s } setInterval(() => hot(%d), 10)")
    start("%s -- node -e '%s'" % (PROBETOP, hot % 2000000))
    try:
        s = wait_screen(r"JS:hot ", 20)
        tap.ok("Top frames, CPU samples" in s and "restart it so" not in s,
               "node without --perf-basic-prof: Top shows its JavaScript "
               "functions from CPU samples (V8's metadata)", s)
        keys("7")
        s = wait_screen(r"Stacks, profile:99=count\(ustack\)[^\n]*\n.*\n│all"
                        r"(.*\n)+│[| +…]*JS:hot ", 10)
        tap.ok(re.search(r"Stacks, profile:99=count\(ustack\)[^\n]*\n.*\n"
                         r"│all(.*\n)+│[| +…]*JS:hot ", s) is not None,
               "node: Stacks shows its stacks, hot() named (nodesample)", s)
        keys("1")
        quit_ok(tap, "node")
    finally:
        tmux("kill-session", "-t", SESSION)
    logs = tempfile.mkdtemp()  # --perf-basic-prof logs to ./isolate-*.log
    start("cd %s && %s -- node --perf-basic-prof -e '%s'"
          % (logs, PROBETOP, hot % 2000000))
    try:
        s = wait_screen(r"JS:hot ", 20)
        tap.ok("Top frames, CPU samples" in s and "restart it so" not in s,
               "node --perf-basic-prof: Top shows its JavaScript functions "
               "from CPU samples", s)
        quit_ok(tap, "node")
    finally:
        tmux("kill-session", "-t", SESSION)
        shutil.rmtree(logs, ignore_errors=True)

def test_php(tap, script):
    start("USE_ZEND_DTRACE=1 %s -- php8.2 %s" % (PROBETOP, script))
    try:
        s = wait_screen(r"leaf +loop\.php:2", 15)
        tap.ok("mid" in s and "loop.php:3" in s,
               "php (USE_ZEND_DTRACE=1): Top shows PHP frames", s)
        quit_ok(tap, "php")
    finally:
        tmux("kill-session", "-t", SESSION)
    # busy (mid(20000) between sleeps of 10 ms, some half a CPU): the
    # profile:99 that Stacks adds samples it several times a second
    start("%s -- php8.2 %s 20000" % (PROBETOP, script))
    try:
        s = wait_screen(r"(mid|leaf) +loop\.php:[23]", 20)
        tap.ok("Top frames, CPU samples" in s and
               re.search(r"(mid|leaf) +loop\.php:[23]", s) is not None,
               "php without USE_ZEND_DTRACE: Top shows its PHP functions "
               "from CPU samples (phpsample)", s)
        keys("2", "/", "function__return", "Enter")
        s = wait_screen(r"started without USE_ZEND_DTRACE=1")
        tap.ok("will not fire: this process was started without "
               "USE_ZEND_DTRACE=1" in s,
               "php without USE_ZEND_DTRACE: Probes says so", s)
        keys("Escape", "1", "7")
        s = wait_screen(r"Stacks, profile:99=count\(phpstack\)"
                        r"(.*\n)+│\{main\}(.*\n)+│.*\bmid\b", 10)
        tap.ok(re.search(r"Stacks, profile:99=count\(phpstack\)"
                         r"(.*\n)+│\{main\}(.*\n)+│.*\bmid\b", s) is not None,
               "php without USE_ZEND_DTRACE: Stacks shows its PHP stacks "
               "({main} over mid)", s)
        keys("5")
        s = wait_screen(r"collected [0-9]+/s  total [1-9]", 10)
        tap.ok(re.search(r"pause p50 [0-9.]+.s", s) is not None and
               re.search(r"collected [0-9]+/s  total [1-9]", s) is not None,
               "php without USE_ZEND_DTRACE: the GC pane times its cycle "
               "collector (a cycle freed by each gc_collect_cycles())", s)
        keys("1")
        quit_ok(tap, "php")
    finally:
        tmux("kill-session", "-t", SESSION)


ERL = """\
-module(hot).
-export([main/0]).
heavy(0) -> ok; heavy(N) -> heavy(N - 1).
light(0) -> ok; light(N) -> light(N - 1).
loop() -> heavy(300000), light(100000), loop().
main() -> loop().
"""


def test_erlang(tap, tmp):
    """Debian's OTP 25 has no probes: erlsample samples it. Started with
    +JPperf true, Top shows its Erlang functions as its perf map names
    them ($hot:heavy/1) and Stacks their stacks; started plainly, Top
    shows them too, named by the BEAM's JIT tables (hot:heavy/1), and
    no hint."""
    start("%s -- erl +JPperf true -noshell -pa %s -s hot main"
          % (PROBETOP, tmp))
    try:
        # both functions: light/1, sampled a quarter as often, may show
        # a second after heavy/1
        s = wait_screen(r"^(?=[\s\S]*\$hot:light/1)[\s\S]*\$hot:heavy/1", 20)
        tap.ok("Top frames, CPU samples" in s and "$hot:light/1" in s and
               "+JPperf true" not in s,
               "erlang +JPperf true: Top shows its Erlang functions from "
               "CPU samples (erlsample)", s)
        keys("7")
        s = wait_screen(r"Stacks, profile:99=count\(ustack\)"
                        r"(.*\n)+│.*\$hot:heavy/1", 10)
        tap.ok(re.search(r"Stacks, profile:99=count\(ustack\)"
                         r"(.*\n)+│.*\$hot:heavy/1", s) is not None,
               "erlang +JPperf true: Stacks shows its Erlang frames", s)
        keys("1")
        quit_ok(tap, "erlang")
    finally:
        tmux("kill-session", "-t", SESSION)
    start("%s -- erl -noshell -pa %s -s hot main" % (PROBETOP, tmp))
    try:
        # the hint may show for a second: until the BEAM's tables are
        # looked for again once beam.smp runs (erl is a script); both
        # functions (light/1 may show a second after heavy/1)
        s = wait_screen(r"^(?![\s\S]*JPperf)(?=[\s\S]*[^$]hot:light/1)"
                        r"[\s\S]*[^$]hot:heavy/1", 20)
        tap.ok("Top frames, CPU samples" in s and "hot:light/1" in s and
               "$hot:" not in s and "+JPperf true" not in s,
               "erlang started plainly: Top shows its Erlang functions, "
               "named by the BEAM's own JIT tables, and no hint", s)
        quit_ok(tap, "erlang")
    finally:
        tmux("kill-session", "-t", SESSION)


def main():
    tap = Tap()
    need_root(tap)
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "Hot.java"), "w") as f:
            f.write(HOT)
        subprocess.run(["javac", "-d", tmp,
                        os.path.join(HERE, "..", "integration",
                                     "GcWork.java"),
                        os.path.join(tmp, "Hot.java")], check=True)
        php = os.path.join(tmp, "loop.php")
        with open(php, "w") as f:
            f.write("<?php\n"
                    "function leaf($x) { return $x + 1; }\n"
                    "function mid($n) { $t = 0; for ($i = 0; $i < $n; "
                    "$i++) $t += leaf($i); return $t; }\n"
                    "$n = $argc > 1 ? (int)$argv[1] : 100;\n"
                    "for (;;) { mid($n); $o = new stdClass(); "
                    "$o->self = $o; unset($o); gc_collect_cycles(); "
                    "usleep(10000); }\n")
        with open(os.path.join(tmp, "hot.erl"), "w") as f:
            f.write(ERL)
        subprocess.run(["erlc", "-o", tmp, os.path.join(tmp, "hot.erl")],
                       check=True)
        rb = os.path.join(tmp, "loop.rb")
        with open(rb, "w") as f:
            f.write("class Foo; end\n"
                    "def leaf(n) i = 0; i += 1 while i < n; end\n"
                    "def mid(n) leaf(n) end\n"
                    "loop { mid(200_000); 2000.times { Foo.new }; "
                    "GC.start; sleep 0.01 }\n")
        cb = os.path.join(tmp, "cb.py")
        with open(cb, "w") as f:
            f.write(CB)
        os.chmod(tmp, 0o755)
        test_python(tap, cb)
        test_ruby(tap, rb)
        test_java(tap, tmp)
        test_java_plain(tap, tmp)
        test_java_hot(tap, tmp)
        test_node(tap)
        test_php(tap, php)
        test_erlang(tap, tmp)
    tap.done()


if __name__ == "__main__":
    main()
