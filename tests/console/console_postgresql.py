#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The console on every backend of a PostgreSQL 15 server of the test's
own (pgcluster.py), in a real terminal (tmux): `probetop -b postgres`
picks the postgresql probeset, the statements of the backends pgbench
starts after it attached show in Top by their text, one row a statement
over every backend (PID "all", COMMAND "(every process)"), Enter on one
shows its latency histogram, the IO view shows the buffer reads of the probeset's [io]
section (PostgreSQL IO), CHECKPOINT shows in the Dashboard's pane titled
Checkpoints, and q quits with status 0. Then a backend's native stacks
in the Stacks view, named as --folded names them (check_stacks()), and
issue 32's load: see check_load()."""
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..",
                                "integration"))
from console_tmux import PROBETOP, SESSION, keys, probetop_pid, screen, \
    start, tmux, wait_screen  # noqa: E402
from console_stacks import USTACK, drawn_frames, folded_names  # noqa: E402
from pgcluster import BIN, POSTGRES, USER, Cluster, \
    need_postgres  # noqa: E402
from tap import Tap, fd_infos, need_root  # noqa: E402

QUERY = "SELECT count(*) FROM pg_class WHERE relname = 'probetop';"
CKPT_FLAGS = 0x4 | 0x8 | 0x20 | 0x40  # immediate, force, wait, requested
# Top shows statements by shape: their literals $1, $2 ..., without the
# ';' (as pg_stat_statements)
SHOWN = re.escape("SELECT count(*) FROM pg_class WHERE relname = $1")


def workload(pg):
    """pgbench running QUERY 50 times a second on two connections for up
    to two minutes (the test stops it before)."""
    script = os.path.join(pg.dir, "query.sql")
    with open(script, "w") as f:
        f.write(QUERY + "\n")
    return subprocess.Popen(
        [BIN + "/pgbench", "-n", "-M", "simple", "-f", script, "-R", "50",
         "-T", "120", "-c", "2", pg.db],
        user=USER, cwd=pg.dir, env=dict(os.environ, PGHOST=pg.dir),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def check_console(tap, pg):
    start("%s -b %s" % (PROBETOP, POSTGRES), w=176, h=40)
    s = wait_screen(r"probes \(\d+ on\)", 20)
    tap.ok("every process running it" in s,
           "the console attaches to the postgres binary", s)
    bench = workload(pg)
    try:
        keys("3")
        # one row a statement over every backend (allpids)
        row = (r"\s+all \(every process\)\s+[\d.,]+\s+"
               r"[\d,]+(\s+\d+(\.\d+)?[mµ]?s){3}\s+" + SHOWN)
        s = wait_screen(row, 20)
        tap.ok("Top frames" in s and re.search(row, s) is not None,
               "Top: the query's shape, one row over every backend (PID "
               "all, COMMAND (every process)), from backends started "
               "after attach", s)
        tap.ok(re.search(r"PID COMMAND +CALLS/s +TOTAL +AVG +P50 +P99 +"
                         r"QUERY\s", s) is not None,
               "columns: AVG, P50 and P99 of the query's latency, and the "
               "name column is the probeset's label, QUERY", s)
        tap.eq(len(re.findall(SHOWN, s)), 1,
               "one row for pgbench's two connections", s)
        keys("Enter")
        s = wait_screen(r"latency +Distribution", 10)
        tap.ok("query__execute__start@PortalRun..postgresql:query__"
               "execute__done@PortalRun=latency(sql(`debug_query_string), "
               "allpids)" in s and
               re.search(r"all " + SHOWN + r"  count \d+", s)
               and re.search(r"p50 \S+ p99 \S+", s),
               "Enter: that query's latency histogram over every backend, "
               "p50 and p99", s)
        keys("6")
        # the catalog's buffers the query reads, found in shared_buffers,
        # over every backend (as pg_statio counts them): all DATABASE
        # RELFILENODE HIT, at pgbench's rate
        io = r"buffer_reads +all \d+ \d+ 1 +[1-9][\d.,]*k? +[\d,]+"
        s = wait_screen(io, 10)
        tap.ok(re.search(r"PostgreSQL IO +KEY +/s +TOTAL +p99", s) and
               re.search(io, s),
               "IO: the probeset's own IO beside the syscalls, under its "
               "title: buffer reads over every backend by database, "
               "relation, hit",
               s)
        keys("1")
        pg.psql("CREATE TABLE dirty AS SELECT 1 AS x;")  # to write
        pg.psql("CHECKPOINT;")
        s = wait_screen(r"flags=%d: \S+/s" % CKPT_FLAGS, 10)
        tap.ok(re.search(r"Checkpoints", s) and "pause p50" in s and
               re.search(r"flags=%d: \S+/s" % CKPT_FLAGS, s) and
               re.search(r"collected \S+/s  total [1-9]", s),
               "Dashboard: CHECKPOINT in the pane titled Checkpoints, its "
               "flags, duration and the buffers it wrote", s)
        keys("q")
        s = wait_screen(r"EXITED \d+")
        tap.ok("EXITED 0" in s, "q quits with status 0", s)
    finally:
        tmux("kill-session", "-t", SESSION)
        bench.kill()
        bench.wait()


def totals(s, pattern):
    """The TOTAL column of Top's rows whose query matches pattern, summed
    (one row over every backend: allpids)."""
    row = re.compile(r"│\s*all \(every process\)\s+([\d.,]+k?)\s+"
                     r"([\d,]+)\s+.*" + pattern)
    return sum(int(m.group(2).replace(",", "")) for m in
               (row.search(line) for line in s.splitlines()) if m)


def alive(pid):
    """Whether pid runs still: an exited process its parent has not
    reaped yet (a zombie: tmux's server, or init once tmux is gone) has
    ended."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def check_load(tap, pg):
    """pgbench's TPC-B-like script by prepared statements (the extended
    protocol, as most drivers use it; two clients) for 60 s under the
    console with -b: the screen changes at every interval, keys are
    answered at once, Top shows the script's 7 statements, the UPDATE
    with as many calls as pg_stat_statements counted, and q quits within
    2 s. Then a
    console whose terminal goes away (tmux kill-session: SIGHUP) ends and
    leaves no link behind. --budget off: the check is an exact count (the
    specs cost about 1% of a CPU here, but a loaded machine may sample)."""
    pg.psql("SELECT pg_stat_statements_reset();")
    start("%s -b %s --budget off" % (PROBETOP, POSTGRES), w=200, h=50)
    s = wait_screen(r"probes \(\d+ on\)", 20)
    bench = pg.run_async([BIN + "/pgbench", "-M", "prepared", "-c", "2",
                          "-j", "1", "-T", "60", pg.db])
    shots, slow = [], []
    try:
        keys("3")
        end = time.time() + 58
        while time.time() < end:
            time.sleep(1.5)  # over one 1 s interval: a new picture
            shots.append(screen())
            before = shots[-1]
            t0 = time.time()
            keys("1" if len(shots) % 2 else "3")  # Dashboard <-> Top
            while screen() == before and time.time() - t0 < 5:
                time.sleep(0.01)
            slow.append(time.time() - t0 - 0.15)  # keys() sleeps 0.15
        out, err = bench.communicate(timeout=60)
        tap.eq(bench.returncode, 0, "pgbench -M prepared -c 2 -T 60 ran",
               err)
        same = sum(a == b for a, b in zip(shots, shots[1:]))
        tap.ok(len(shots) >= 30 and same == 0,
               "the screen changed between every two looks 1.5 s apart "
               "(%d looks, %d unchanged)" % (len(shots), same))
        tap.ok(max(slow) < 1.0, "every key answered within 1 s under the "
               "load (slowest %.3f s, median %.3f s)"
               % (max(slow), sorted(slow)[len(slow) // 2]))
        stats = pg.psql("SELECT calls FROM pg_stat_statements WHERE query "
                        "LIKE 'UPDATE pgbench_accounts%';",
                        tuples=True).stdout.split()
        keys("3")
        time.sleep(2.5)  # the interval after the last call
        s = screen()
        script = [r"BEGIN", r"UPDATE pgbench_accounts SET", r"SELECT "
                  r"abalance FROM", r"UPDATE pgbench_tellers SET",
                  r"UPDATE pgbench_branches SET", r"INSERT INTO "
                  r"pgbench_history", r"END"]
        tap.eq([q for q in script if not totals(s, q + r"\b")], [],
               "Top: each of the script's 7 prepared statements", s)
        keys("/", "UPDATE pgbench_accounts", "Enter")
        time.sleep(0.5)
        s = screen()
        shown = totals(s, re.escape("UPDATE pgbench_accounts SET abalance "
                                    "= abalance + $1 WHERE aid"))
        tap.ok(len(stats) == 1 and shown == int(stats[0]) and shown > 1000,
               "Top: the UPDATE by its shape, its calls as many as "
               "pg_stat_statements' (%s)" % stats, s)
        t0 = time.time()
        keys("q")
        s = wait_screen(r"EXITED \d+", 5)
        tap.ok("EXITED 0" in s and time.time() - t0 < 2,
               "q quits within 2 s (%.2f s)" % (time.time() - t0), s)
    finally:
        tmux("kill-session", "-t", SESSION)
        bench.kill()
        bench.wait()
    start("%s -b %s" % (PROBETOP, POSTGRES), w=120, h=40)
    wait_screen(r"probes \(\d+ on\)", 20)
    pid = probetop_pid()
    links = [int(i["link_id"]) for i in fd_infos(pid) if "link_id" in i]
    t0 = time.time()
    tmux("kill-session", "-t", SESSION)  # the terminal gone: SIGHUP
    while alive(pid) and time.time() - t0 < 2:
        time.sleep(0.02)
    took = time.time() - t0
    left = [i for i in links if subprocess.run(
        ["bpftool", "link", "show", "id", str(i)],
        capture_output=True).returncode == 0]
    tap.ok(links and not alive(pid) and not left,
           "SIGHUP (its tmux pane killed): probetop ends within 2 s (%.2f "
           "s), none of its %d links left" % (took, len(links)), left)


def check_stacks(tap, pg):
    """Stacks (7) of one backend summing a long series under
    profile:99=count(ustack): its native stacks drawn from main through
    PostgresMain, every name drawn one that --folded prints for the same
    backend (postgres's own static functions as postgres+0x<their
    start>), no module prefix."""
    s = pg.session()
    try:
        backend = int(s.query("SELECT pg_backend_pid();"))
        s.send("SET jit = off;")  # the loop, not LLVM's compilation
        s.send("SET statement_timeout = 20000;")  # the sum is cut there
        s.send("SELECT sum(i) FROM generate_series(1, 4000000000) i;")
        start("%s -p %d -e '%s'" % (PROBETOP, backend, USTACK), 200, 50)
        wait_screen(r"probes \(\d+ on\)", 20)
        keys("7")
        scr = wait_screen(r"│PostgresMain +\|", 15)
        time.sleep(2)
        drawn = drawn_frames(screen())
        folded = folded_names(backend)
        missing = sorted(n for n in drawn if n not in folded)
        leaked = sorted(n for n in drawn
                        if re.match(r"^[\w.+-]+(\.so[\w.]*|postgres)"
                                    r"[`:!]", n))
        tap.ok("│PostgresMain " in scr and "main" in drawn and
               len(drawn) >= 8 and not leaked and
               len(missing) <= len(drawn) // 10,
               "Stacks of a backend: main ... PostgresMain drawn, the %d "
               "frames drawn are --folded's names (%d not sampled by "
               "that run), no module prefix" % (len(drawn), len(missing)),
               "missing: %r\nleaked: %r\n%s" % (missing, leaked, scr))
        keys("q")
        wait_screen(r"EXITED \d+", 5)
    finally:
        tmux("kill-session", "-t", SESSION)
        s.close()


def main():
    tap = Tap()
    need_root(tap)
    need_postgres(tap)
    with Cluster("-c shared_preload_libraries=pg_stat_statements") as pg:
        pg.psql("CREATE EXTENSION pg_stat_statements;")
        init = pg.run([BIN + "/pgbench", "-i", "-q", pg.db])
        tap.eq(init.returncode, 0, "pgbench -i", init.stderr)
        check_console(tap, pg)
        check_stacks(tap, pg)
        check_load(tap, pg)
    tap.done()


if __name__ == "__main__":
    main()
