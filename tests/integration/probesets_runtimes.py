# SPDX-License-Identifier: MIT
"""The shipped probesets on Debian's runtimes, attached by -p and launched
with -- COMMAND: exact calls per function and GC counts for Python,
objects per class and GC.start counts for Ruby (and ten launches under
the default ruby probeset without a crash), System.gc() counts and every
class load for Java, function counts for PHP with USE_ZEND_DTRACE=1 and
the warning without it; Pony, Erlang and Node on a fixture that declares
their providers; C++ exceptions by type through libstdc++."""

import os
import subprocess
import tempfile

from tap import FIXTURE_DIR, Tap, Target, Trace, agg_of, need_root

tap = Tap()
need_root(tap)
HERE = os.path.dirname(os.path.abspath(__file__))


def rows(tr, spec, field="count"):
    """{key tuple: field} of spec in tr's final summary ({} if absent)."""
    a = agg_of(tr.final(), spec) if tr.final() else None
    return {tuple(r["key"]): r[field] for r in a["rows"]} if a else {}


DROPS = []  # (what, string reads failed) of every run: a wrong argument
#             in a probeset's SPEC shows up as those (a sample without
#             a Ruby or PHP frame, dropped as such, is not one)


def string_drops(tr):
    """Hits of tr's specs dropped because a string key was unreadable."""
    return sum(a["drops_by"]["string"] for a in tr.final()["aggs"])


def launched(args, env=None):
    """trace ARGS (ending in -- COMMAND), run to the command's exit."""
    tr = Trace(args, env=env)
    tr.finish(sig=None, timeout=120)
    DROPS.append((" ".join(args[-3:]), string_drops(tr)))
    return tr


def attached(argv, args, send="go", env=None):
    """Start argv (it says ready, then works after one line), trace it by
    -p with ARGS, let it work; returns (trace, the target's reply)."""
    t = Target(argv, env=env)
    tr = Trace(["-p", str(t.pid), "-i", "60"] + args, env=env)
    reply = t.send(send).split()
    tr.finish()
    t.stop()
    DROPS.append((" ".join(argv), string_drops(tr)))
    return tr, reply


# -- python ----------------------------------------------------------------
PY = "/usr/bin/python3.11"
PY_CALLS = "python:function__return=count(str(arg1),str(arg0),pyfirstline)"
PY_GC = "python:gc__start..python:gc__done=latency(arg0)"
PY_COLLECTED = "python:gc__done=sum(arg0)"
PY_WORK = """\
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
    for _ in range(k):  # the loop's end is where it returns
        a = Node(); b = Node(); a.b = b; b.a = a
def work():
    for _ in range(10):
        mid(30)
    got = []
    for gen, k in ((0, 5), (0, 7), (1, 3), (1, 0), (1, 2), (2, 11), (2, 0)):
        cycles(k)
        got.append(gc.collect(gen))
    return got
if sys.argv[1:] == ["wait"]:
    print("ready", flush=True)
    sys.stdin.readline()
    print("done", *work(), flush=True)
    sys.stdin.readline()
else:
    work()
"""

with tempfile.TemporaryDirectory() as tmp:
    script = os.path.join(tmp, "work.py")
    with open(script, "w") as f:
        f.write(PY_WORK)
    lines = PY_WORK.splitlines()
    def line(text):
        return lines.index(text) + 1
    # one row per function, at its first line, whatever line it returns
    # from (mid and work return on their last, cycles at its loop)
    want_calls = {("leaf", script, line("def leaf(x): return x + 1")): 300,
                  ("mid", script, line("def mid(n):")): 10,
                  ("cycles", script, line("def cycles(k):")): 7,
                  ("work", script, line("def work():")): 1}

    tr, reply = attached([PY, script, "wait"], ["-P", "python"])
    calls = {k: v for k, v in rows(tr, PY_CALLS).items() if k[1] == script}
    tap.eq(calls, want_calls, "python -p: exact calls per function (-P python)")
    tap.eq(rows(tr, PY_GC), {(0,): 2, (1,): 3, (2,): 2},
           "python -p: exact collections per generation")
    tap.eq(rows(tr, PY_COLLECTED, "sum").get(()),
           sum(int(x) for x in reply[1:]),
           "python -p: objects collected = what gc.collect() returned")

    tr = launched(["-P", "python", "--", PY, script])
    calls = {k: v for k, v in rows(tr, PY_CALLS).items() if k[1] == script}
    want_calls.update({("Node", script, line("class Node: pass")): 1,
                       ("<module>", script, 1): 1})
    tap.eq(calls, want_calls, "python --: exact calls per function, the "
                              "module and the class body included")
    tap.eq(rows(tr, PY_GC).get((1,)), 3,
           "python --: exact generation-1 collections (start-up and exit "
           "collect only 0 and 2)")

    # imports: one row per module found and loaded, timed
    PY_IMPORT = ("python:import__find__load__start.."
                 "python:import__find__load__done=latency(str(arg0))")
    for m in ("pt_mod_a", "pt_mod_b"):
        with open(os.path.join(tmp, m + ".py"), "w") as f:
            f.write("X = 1\n")
    imp = os.path.join(tmp, "imp.py")
    with open(imp, "w") as f:
        f.write("import sys\nprint('ready', flush=True)\n"
                "sys.stdin.readline()\n"
                "import pt_mod_a, pt_mod_b, pt_mod_a\n"
                "for i in range(4): sys.audit('probetop.test', i)\n"
                "print('done', flush=True)\nsys.stdin.readline()\n")
    tr, reply = attached([PY, imp], ["-P", "python"])
    tap.eq({k: v for k, v in rows(tr, PY_IMPORT).items()
            if k[0].startswith("pt_mod")},
           {("pt_mod_a",): 1, ("pt_mod_b",): 1},
           "python -p: imports timed per module, each loaded once")
    tap.eq(rows(tr, "python:audit=count(str(arg0))").get(("probetop.test",)),
           4, "python -p: audit events by name, exact")

    # -- ruby --------------------------------------------------------------
    RB_OBJ = "ruby:object__create=count(str(arg0))"
    RB_MARK = "ruby:gc__mark__begin..ruby:gc__mark__end=latency()"
    rb = os.path.join(tmp, "work.rb")
    with open(rb, "w") as f:
        f.write("class Foo; end\n"
                "STDOUT.sync = true\n"
                "wait = ARGV[0] == 'wait'\n"
                "if wait then puts 'ready'; STDIN.gets end\n"
                "700.times { Foo.new }\n"
                "5.times { GC.start }\n"
                "puts 'done'\n"
                "STDIN.gets if wait\n")
    RUBY = ["ruby3.1", "--disable-gems", rb]
    tr, reply = attached(RUBY + ["wait"], ["-P", "ruby"])
    tap.eq((rows(tr, RB_OBJ).get(("Foo",)), rows(tr, RB_MARK).get(())),
           (700, 5), "ruby -p: exact Foo objects and GC.start marks")
    tr = launched(["-P", "ruby", "--"] + RUBY)
    tap.eq((rows(tr, RB_OBJ).get(("Foo",)), rows(tr, RB_MARK).get(())),
           (700, 5), "ruby --: exact Foo objects and GC.start marks")

    # the default probeset (detected), ten launches: never a crash
    good = 0
    for i in range(10):
        tr = launched(["--"] + RUBY)
        if tr.rc == 0 and tr.stdout.startswith("done") and \
                "[BUG]" not in tr.stderr and \
                rows(tr, RB_OBJ).get(("Foo",)) == 700:
            good += 1
        else:
            tap.ok(False, "ruby launch %d" % i, tr.stderr[-500:])
    tap.eq(good, 10, "ruby: ten launches under the detected probeset, "
                     "exact each time, no crash")

    # -- java --------------------------------------------------------------
    J_GC = "hotspot:gc__begin..hotspot:gc__end=latency(arg0)"
    J_CLASS = "hotspot:class__loaded=count(str(arg0,arg1))"
    J_RET = "hotspot:method__return=count(str(arg1,arg2),str(arg3,arg4))"
    subprocess.run(["javac", "-d", tmp, os.path.join(HERE, "GcWork.java")],
                   check=True)
    JAVA = ["java", "-Xms64m", "-Xmx64m", "-XX:+UseSerialGC", "-cp", tmp,
            "GcWork", "7"]
    tr, reply = attached(JAVA + ["wait"], ["-P", "java"])
    tap.eq(sum(rows(tr, J_GC).values()), 7,
           "java -p: exact collections for 7 System.gc()")

    log = os.path.join(tmp, "classes.log")
    tr = launched(["-P", "java", "--", JAVA[0],
                   "-Xlog:class+load=info:file=%s" % log] + JAVA[1:])
    tap.eq(sum(rows(tr, J_GC).values()), 7,
           "java --: exact collections (libjvm is dlopen()ed by the "
           "launcher)")
    with open(log) as f:
        nlog = sum(1 for l in f if "source:" in l)
    tap.ok(nlog > 300 and sum(rows(tr, J_CLASS).values()) == nlog,
           "java --: every class load from JVM start-up on, as the JVM's "
           "own log counts them (%d)" % nlog,
           "%d != %d" % (sum(rows(tr, J_CLASS).values()), nlog))

    tr = launched(["--"] + JAVA)
    tap.ok("probetop: probeset java: its probes appeared in %d\n"
           % int(tr.attached.split()[-1]) in tr.stderr and
           sum(rows(tr, J_GC).values()) == 7,
           "java -- without -P: the java probeset is picked when libjvm is "
           "loaded, exact from then on", tr.stderr)

    tr = launched(["-e", J_RET, "--"] + JAVA)
    tap.ok("probetop: hotspot:method__* will not fire: process %d was "
           "started without -XX:+DTraceMethodProbes or "
           "-XX:+ExtendedDTraceProbes\n" % int(tr.attached.split()[-1])
           in tr.stderr, "java: the missing flag is named", tr.stderr)
    # every method's return costs a trap: under the default budget the
    # spec is sampled, so exact counts need --budget off
    tr = launched(["--budget", "off", "-e", J_RET, "--", JAVA[0],
                   "-XX:+DTraceMethodProbes"] + JAVA[1:])
    tap.eq((rows(tr, J_RET).get(("GcWork", "fire")),
            "will not fire" in tr.stderr), (7, False),
           "java -XX:+DTraceMethodProbes --budget off: exact returns of "
           "GcWork.fire")

    # -- php ---------------------------------------------------------------
    P_CALLS = "php:function__return=count(str(arg0),str(arg1),arg2)"
    P_THROWN = "php:exception__thrown=count(str(arg0))"
    P_CAUGHT = "php:exception__caught=count()"
    php = os.path.join(tmp, "work.php")
    with open(php, "w") as f:
        f.write("<?php\n"
                "function leaf($x) { return $x + 1; }\n"
                "function mid($n) { $t = 0; for ($i = 0; $i < $n; $i++) "
                "$t += leaf($i); return $t; }\n"
                "$wait = ($argv[1] ?? '') == 'wait';\n"
                "if ($wait) { echo \"ready\\n\"; fgets(STDIN); }\n"
                "for ($k = 0; $k < 10; $k++) mid(30);\n"
                "for ($k = 0; $k < 3; $k++) { try { throw new "
                "RuntimeException('x'); } catch (Exception $e) {} }\n"
                "echo \"done\\n\";\n"
                "if ($wait) fgets(STDIN);\n")
    want = {("leaf", php, 2): 300, ("mid", php, 3): 10}
    env = dict(os.environ, USE_ZEND_DTRACE="1")
    tr, reply = attached(["php8.2", php, "wait"], ["-P", "php"], env=env)
    tap.eq(({k: v for k, v in rows(tr, P_CALLS).items() if k[1] == php},
            rows(tr, P_THROWN), rows(tr, P_CAUGHT)),
           (want, {("RuntimeException",): 3}, {(): 3}),
           "php -p (USE_ZEND_DTRACE=1): exact calls and exceptions")
    tr = launched(["-P", "php", "--", "php8.2", php], env=env)
    tap.eq({k: v for k, v in rows(tr, P_CALLS).items()
            if k[0] in ("leaf", "mid")}, want,
           "php -- (USE_ZEND_DTRACE=1): exact calls per function")
    tr = launched(["-P", "php", "--", "php8.2", php])
    pid = int(tr.attached.split()[-1])
    said = [l.strip() for l in tr.stderr.splitlines() if "will not" in l]
    tap.eq((said, rows(tr, P_CALLS), rows(tr, P_THROWN)),
           (["probetop: php:%s will not fire: process %d was started "
             "without USE_ZEND_DTRACE=1" % (p, pid)
             for p in ("function__*", "compile__file__*")],
            {}, {("RuntimeException",): 3}),
           "php without USE_ZEND_DTRACE: said once per probe family; "
           "exceptions still counted", tr.stderr)

# -- pony, erlang, node: a fixture with their providers ----------------------
RT = os.path.join(FIXTURE_DIR, "runtimes")
tr = launched(["-P", "pony", "--", RT, "pony", "20"])
tap.eq((rows(tr, "pony:gc__start..pony:gc__end=latency()"),
        agg_of(tr.final(), "pony:heap__alloc=quantize(arg1)")["rows"][0]
        ["buckets"],
        rows(tr, "pony:actor__alloc=count()"),
        rows(tr, "pony:actor__msg__send=count(arg1)")),
       ({(): 20}, [[16, 5], [32, 5], [64, 5], [128, 5]], {(): 20},
        {(0,): 7, (1,): 7, (2,): 6}),
       "pony: GC pauses, heap sizes, actors and messages exact")
tr = launched(["-P", "erlang", "--", RT, "erlang", "20"])
tap.eq((rows(tr, "erlang:function__return=count(str(arg1))"),
        rows(tr, "erlang:gc_major__start..erlang:gc_major__end=latency()"),
        rows(tr, "erlang:gc_minor__start..erlang:gc_minor__end=latency()"),
        rows(tr, "erlang:process__spawn=count(str(arg1))"),
        rows(tr, "erlang:process__exit=count(str(arg1))"),
        agg_of(tr.final(), "erlang:message__send=quantize(arg2)")["rows"][0]
        ["buckets"]),
       ({("gen:call/4",): 10, ("lists:seq/2",): 10}, {(): 5}, {(): 20},
        {("proc_lib:init_p/5",): 20}, {("normal",): 20}, [[8, 10], [16, 10]]),
       "erlang: calls per MFA, GCs, spawns, exits, message sizes exact")
tr = launched(["-P", "node", "--", RT, "node", "20"])
tap.eq((rows(tr, "node:gc__start..node:gc__done=latency(arg0)"),
        rows(tr, "node:http__server__request=count(str(arg4),str(arg5))"),
        rows(tr, "node:http__server__response=count()"),
        rows(tr, "node:net__server__connection=count()")),
       ({(1,): 10, (2,): 10}, {("GET", "/a"): 10, ("POST", "/b"): 10},
        {(): 20}, {(): 4}),
       "node: GCs by type, requests by method and URL, connections exact")

# -- libstdcxx: C++ exceptions by type, named by sym() -----------------------
CXX = os.path.join(FIXTURE_DIR, "cxxthrow")
THROWN = "libstdcxx:throw=count(sym(arg1))"
CAUGHT = "libstdcxx:catch=count(sym(arg1))"
TYPES = {("std::runtime_error",): 5, ("app::Oops",): 3, ("int",): 2}
tr, reply = attached([CXX], ["-P", "libstdcxx"])
tap.eq((reply, rows(tr, THROWN), rows(tr, CAUGHT)),
       (["thrown", "10"], TYPES, TYPES),
       "libstdcxx -p: exceptions thrown and caught by type, exact")
tr = launched(["-P", "libstdcxx", "-e", "fn:libc.so.6:qsort=count(sym(arg3))",
               "--", CXX, "--now"])
tap.eq((rows(tr, THROWN), rows(tr, "fn:libc.so.6:qsort=count(sym(arg3))")),
       (TYPES, {("by_value",): 4}),
       "libstdcxx --: types named after the command is gone; sym() of a "
       "function pointer names the function")

tap.eq([d for d in DROPS if d[1]], [],
       "no run failed a string read (every probeset argument is readable)")
tap.done()
