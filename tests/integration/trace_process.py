# SPDX-License-Identifier: MIT
"""probetop trace -P process: the processes and threads a target and its
descendants start, the files they exec and how they end, from the
kernel's sched_process_* tracepoints, exact, by -p and with -- COMMAND;
what does not fit the process map, counted as drops."""

import os
import tempfile

from tap import Tap, Target, Trace, held_maps, need_root

tap = Tap()
need_root(tap)
PY = "/usr/bin/python3.11"
TRUE = "/bin/true"  # exec rows name the path given to execve


def rows(obj, pid):
    """{(event, name, code): (total, life_ns, buckets)} of pid's rows."""
    return {(r["event"], r["name"], r.get("code")):
            (r["total"], r.get("life_ns"), r.get("buckets"))
            for r in obj.get("process", []) if r["pid"] == pid}


def totals(obj, pid):
    return {k: v[0] for k, v in rows(obj, pid).items()}


WORKLOAD = """\
import os, subprocess, sys, threading, time
print("ready", flush=True)
sys.stdin.readline()
for _ in range(5):
    subprocess.run([%r])
subprocess.run(["/bin/sh", "-c", "exit 3"])
subprocess.run(["/bin/sh", "-c", "/bin/true; kill -9 $$"])
ts = [threading.Thread(target=time.sleep, args=(0.05,)) for _ in range(4)]
for t in ts: t.start()
for t in ts: t.join()
print("done", flush=True)
sys.stdin.readline()
""" % TRUE

with tempfile.TemporaryDirectory() as tmp:
    script = os.path.join(tmp, "spawn.py")
    with open(script, "w") as f:
        f.write(WORKLOAD)

    # -- by -p: what the target and its children do ---------------------
    t = Target([PY, script])
    tr = Trace(["-p", str(t.pid), "-i", "30", "-P", "process"])
    tap.eq(tr.attached, "probetop: attached 0 probes to %d" % t.pid,
           "-P process: live (no USDT probe needed)")
    tap.eq(t.send("go").strip(), "done", "workload ran")
    tr.finish()
    got = totals(tr.final(), t.pid)
    want = {
        ("fork", "python3.11", None): 7,   # 5 true, 2 sh
        ("exec", TRUE, None): 6,           # 5 by python, 1 by the sh
        ("exec", "/bin/sh", None): 2,
        ("exit", "true", 0): 6,
        ("exit", "sh", 3): 1,
        ("exit", "sh", -9): 1,
        ("thread", "python3.11", None): 4,
        ("thread-exit", "python3.11", None): 4,
    }
    tap.eq({k: got.get(k) for k in want}, want,
           "exact forks, execs by file, exits by status/signal, threads")
    extra = {k: v for k, v in got.items() if k not in want and k[0] != "fork"}
    tap.eq(extra, {}, "nothing else exec'd or ended")
    tap.eq(got.get(("fork", "sh", None)), 1,
           "a descendant's fork is counted for the target (sh runs true)")
    r = rows(tr.final(), t.pid)
    tap.ok(all(sum(c for _, c in r[k][2]) == r[k][0] and r[k][1] > 0
               for k in r if k[0] in ("exit", "thread-exit")),
           "every exit has a lifetime in its histogram", r)
    life = r[("thread-exit", "python3.11", None)][1] / 4
    tap.ok(50e6 <= life < 5e9, "thread lifetime covers its 50 ms sleep",
           life)
    t.stop()

    # -- a child started before attach is followed too ----------------------
    pre = os.path.join(tmp, "pre.py")
    with open(pre, "w") as f:
        f.write("import subprocess, sys\n"
                "sh = subprocess.Popen(['/bin/sh', '-c', "
                "'read x; %s; %s; exit 4'], stdin=subprocess.PIPE)\n"
                "print('ready', flush=True)\n"
                "sys.stdin.readline()\n"
                "sh.communicate(b'go\\n')\n"
                "print('done', flush=True)\n"
                "sys.stdin.readline()\n" % (TRUE, TRUE))
    t = Target([PY, pre])
    tr = Trace(["-p", str(t.pid), "-i", "30", "-P", "process"])
    tap.eq(t.send("go").strip(), "done", "the running child did its work")
    tr.finish()
    tap.eq(totals(tr.final(), t.pid),
           {("fork", "sh", None): 2, ("exec", TRUE, None): 2,
            ("exit", "true", 0): 2, ("exit", "sh", 4): 1},
           "a child running before attach: its forks, execs and exit")
    t.stop()

    # -- launched: the command itself is watched from its first instruction
    tr = Trace(["-P", "process", "--", "/bin/sh", "-c",
                "%s; %s; exit 7" % (TRUE, TRUE)])
    tr.finish(sig=None)
    pid = tr.final().get("pid")
    got = totals(tr.final(), pid)
    tap.eq((tr.rc, got), (0, {("exec", "/bin/sh", None): 1,
                              ("fork", "sh", None): 2,
                              ("exec", TRUE, None): 2,
                              ("exit", "true", 0): 2,
                              ("exit", "sh", 7): 1}),
           "-- sh: its own exec and exit status, its forks and execs")

    # -- text output ------------------------------------------------------
    tr = Trace(["-P", "process", "--", "/bin/sh", "-c", "%s" % TRUE],
               json_out=False)
    tr.finish(sig=None)
    lines = [l.split() for l in tr.stdout.splitlines()
             if l.startswith("PROC")]
    tap.ok(["PROC", "PID", "EVENT", "CODE", "COUNT", "AVG_LIFE_NS",
            "NAME"] in lines and
           any(l[2:5] == ["exit", "0", "1"] and l[6] == "sh" for l in lines),
           "text: PROC lines with event, code, count, lifetime, name",
           tr.stdout)

    # -- more events than the process map holds: counted as drops -------
    # with --aggsize 1m it holds CAP keys: the command's exec, its fork and
    # the exits of the children with status 1..CAP-2 fit; the other
    # children's exits and the command's own exit (status 0) are dropped
    many = os.path.join(tmp, "many.py")
    with open(many, "w") as f:
        f.write("import os\n"
                "for i in range(1, 81):\n"
                "    pid = os.fork()\n"
                "    if pid == 0:\n"
                "        os._exit(i)\n"
                "    os.waitpid(pid, 0)\n")
    tr = Trace(["-P", "process", "--aggsize", "1m", "--", PY, many],
               json_out=False)
    [cap] = [m["max_entries"] for m in held_maps(tr.p.pid)
             if m.get("name") == "proc"]
    tr.finish(sig=None)
    final = tr.stdout[tr.stdout.index("=== final"):]
    got = [l.split() for l in final.splitlines()
           if l.startswith("PROC ")][1:]
    lost = 80 - (cap - 2) + 1
    tap.ok(cap < 80, "--aggsize 1m: the process map holds %d keys" % cap)
    tap.eq((len(got), sorted(int(l[3]) for l in got if l[2] == "exit"),
            [l[4] for l in got if l[2] == "fork"]),
           (cap, list(range(1, cap - 1)), ["80"]),
           "a full process map: the first %d keys, exact" % cap)
    tap.ok("(%d dropped by the kernel: %d process events, map full at %d "
           "keys; raise --aggsize)" % (lost, lost, cap) in final and
           "· %d drops" % lost in final,
           "the %d events it could not hold are drops, with why" % lost,
           tr.stdout)

# -- -b is refused with a clear line ---------------------------------------
r = Trace(["-b", PY, "-P", "process"])
r.finish(sig=None)
tap.eq((r.rc, r.stderr.strip()),
       (1, "probetop: -P process needs -p PID or a command, not -b"),
       "-P process with -b: one clear line")
r = Trace(["-b", PY, "-e", "profile:99=count(ustack)"])
r.finish(sig=None)
tap.eq((r.rc, r.stderr.strip()),
       (1, "probetop: -e 'profile:99=count(ustack)': cannot attach: "
        "profile:HZ samples one process: give -p PID or a command, not -b"),
       "profile:HZ with -b: one clear line")
r = Trace(["-b", PY, "-e", "fn:libc.so.6:getpid=count(pystack)"])
r.finish(sig=None)
tap.eq((r.rc, r.stderr.strip()),
       (1, "probetop: -e 'fn:libc.so.6:getpid=count(pystack)': cannot "
        "attach: pyframe, pystack, mixstack, phpframe, phpstack, rbframe, "
        "rbline and rbstack read one process's interpreter: give -p PID or a "
        "command, not -b"),
       "a Python key with -b: one clear line, as PHP's and Ruby's")

tap.done()
