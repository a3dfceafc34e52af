# SPDX-License-Identifier: MIT
"""Driver of tests/bench/soak.sh (see there). argv[1]: the build dir;
argv[2]: seconds (600); more arguments go to the console
("--budget off")."""

import os
import re
import subprocess
import sys
import threading
import time

import conbench

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "integration"))
from pgcluster import BIN, POSTGRES, USER, Cluster  # noqa: E402

BUILD = sys.argv[1]
SECONDS = int(sys.argv[2]) if len(sys.argv) > 2 else 600
EXTRA = " ".join(sys.argv[3:])
PROBETOP = os.path.join(BUILD, "ui/probetop")
RAW = "postgresql:query__start=count(str(arg0))"  # one row per text
MINUTE = 60 if SECONDS >= 120 else SECONDS // 2


def pgbench(pg, seconds):
    """pgbench's TPC-B-like script, simple protocol: each statement sent
    as text with its literals, 2 clients."""
    return subprocess.Popen(
        [BIN + "/pgbench", "-n", "-M", "simple", "-c", "2", "-j", "1",
         "-T", str(seconds), pg.db],
        user=USER, cwd=pg.dir, env=dict(os.environ, PGHOST=pg.dir),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def sample(con, stop, rss):
    """(seconds since start, RSS MB, console CPU s) each second."""
    t0 = time.time()
    while not stop.is_set():
        rss.append((time.time() - t0, con.rss_mb(), con.cpu_s()))
        stop.wait(1)


def header_drops(screen):
    m = re.search(r"drops (\d+)", screen)
    return int(m.group(1)) if m else -1


def quit_time(con):
    """Seconds from q to the console's exit (None: it stayed)."""
    t0 = time.time()
    con.send("q")
    while time.time() - t0 < 10:
        if not os.path.exists("/proc/%d" % con.pid) or \
                open("/proc/%d/stat" % con.pid).read().split()[2] == "Z":
            return time.time() - t0
        time.sleep(0.01)
    return None


def minute_row(i, frames, keys, rss, cpu):
    print("| %d | %s | %s | %.0f | %.1f%% |" % (
        i + 1, conbench.summary(frames), conbench.summary(keys), rss, cpu))


def minutes(con, frames):
    """Each minute (MINUTE s) of the run, a table row: the console's
    frames, its response to a round of keys every few seconds, its RSS
    and CPU. Returns every frame, every key's time, the last screen."""
    all_frames, all_keys, screen = [], [], ""
    print("| minute | frames | key response | RSS MB (end) | CPU |")
    print("| --- | --- | --- | --- | --- |")
    t0 = time.time()
    for i in range(SECONDS // MINUTE):
        c0, keys = con.cpu_s(), []
        while time.time() - t0 < (i + 1) * MINUTE - 10:
            keys += conbench.key_response(con, 1)
            time.sleep(5)
        time.sleep(max(0.0, t0 + (i + 1) * MINUTE - time.time()))
        ms = frames.take()
        screen = con.screen()
        minute_row(i, ms, keys, con.rss_mb(),
                   100.0 * (con.cpu_s() - c0) / MINUTE)
        all_frames += ms
        all_keys += keys
    return all_frames, all_keys, screen


def soak(pg):
    con = conbench.Console("%s -b %s -P postgresql -e '%s' %s" %
                           (PROBETOP, POSTGRES, RAW, EXTRA))
    stop, rss, frames, bench = threading.Event(), [], None, None
    sampler = threading.Thread(target=sample, args=(con, stop, rss))
    try:
        frames = conbench.Frames(con.pid)
        sampler.start()
        con.wait_for("probes (")  # attached: the header is up
        bench = pgbench(pg, SECONDS)
        all_frames, all_keys, screen = minutes(con, frames)
        out = bench.communicate(timeout=120)[0]
        q = quit_time(con)
    finally:
        stop.set()
        if sampler.is_alive():
            sampler.join()
        if frames:
            frames.stop()
        con.close()
        if bench and bench.poll() is None:
            bench.kill()
    tps = re.search(r"number of transactions actually processed: (\d+)",
                    out)
    print("whole run: frames %s; key response %s" % (
        conbench.summary(all_frames), conbench.summary(all_keys)))
    print("RSS: %.0f MB at start, %.0f MB at most, %.0f MB at the end" % (
        rss[0][1], max(r[1] for r in rss), rss[-1][1]))
    print("pgbench: %s transactions (each a new text for its UPDATE of "
          "pgbench_accounts, of 10^9 possible)" % (
              tps.group(1) if tps else "?"))
    print("drops in the header at the end: %d; q quit in %s" % (
        header_drops(screen), "%.2f s" % q if q is not None else "NEVER"))
    print("screen at the end:\n" + screen)
    return conbench.percentile(all_frames, 99) < 50 and \
        conbench.percentile(all_keys, 99) < 200 and q is not None


with Cluster() as pg:
    pg.run([BIN + "/pgbench", "-i", "-q", pg.db], check=True)
    print("soak: %d s of pgbench -M simple -c 2 on PostgreSQL 15, the "
          "console (120x40) on -b %s -P postgresql -e '%s' %s; load "
          "before: %s" % (SECONDS, POSTGRES, RAW, EXTRA,
                          open("/proc/loadavg").read().strip()))
    ok = soak(pg)
    print("load after: %s" % open("/proc/loadavg").read().strip())
print("goals met" if ok else "goals NOT met")
