# SPDX-License-Identifier: MIT
"""Driver of tests/bench/scrape.sh (see there). argv[1]: the build dir."""

import http.client
import os
import re
import subprocess
import sys
import threading
import time

BUILD = sys.argv[1]
PROBETOP = os.path.join(BUILD, "ui/probetop")
FIXTURE = os.path.join(BUILD, "tests/fixtures/sdt_target")
KEYS = 10000
SCRAPES = 50
OPENMETRICS = "application/openmetrics-text; version=1.0.0"


class Tracer:
    def __init__(self, pid, spec, listen=True, interval="1"):
        argv = [PROBETOP, "trace", "-p", str(pid), "-e", spec, "-i",
                interval, "--budget", "off"]
        if listen:
            argv += ["--listen", "127.0.0.1:0"]
        self.p = subprocess.Popen(argv, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True)
        self.port = None
        for line in self.p.stderr:
            m = re.search(r"serving metrics on http://127\.0\.0\.1:(\d+)/",
                          line)
            if m:
                self.port = int(m.group(1))
            if "attached" in line:
                break
        threading.Thread(target=lambda: [None for _ in self.p.stderr],
                         daemon=True).start()

    def get(self, accept=None):
        """(seconds, body bytes) of one scrape on a new connection"""
        t0 = time.perf_counter()
        c = http.client.HTTPConnection("127.0.0.1", self.port)
        c.request("GET", "/metrics",
                  headers={"Accept": accept} if accept else {})
        body = c.getresponse().read()
        c.close()
        return time.perf_counter() - t0, body

    def cpu_s(self):
        with open("/proc/%d/stat" % self.p.pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self):
        self.p.terminate()
        self.p.wait()


def wait_rows(tr, family, n, timeout=30):
    end = time.time() + timeout
    while time.time() < end:
        _, body = tr.get()
        if body.count(b"\n" + family.encode()) >= n:
            return body
        time.sleep(0.2)
    raise SystemExit("bench: %s never reached %d series" % (family, n))


def timed(tr, accept):
    times, size = [], 0
    for _ in range(SCRAPES):
        s, body = tr.get(accept)
        times.append(s * 1000)
        size = len(body)
    times.sort()
    return times[len(times) // 2], times[int(len(times) * 0.95)], \
        times[-1], size


def main():
    t = subprocess.Popen([FIXTURE], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True)
    pid = int(t.stdout.readline().split()[1])
    print("%-34s %8s %8s %8s %10s" % ("10,000 series", "p50 ms", "p95 ms",
                                       "max ms", "bytes"))
    results = {}
    for kind, spec, family in (
            ("counters", "fixture:multi=count(arg0)",
             "probetop_fixture_multi_total{"),
            ("histograms", "fixture:multi=quantize(arg0,arg0)",
             "probetop_fixture_multi_count{")):
        tr = Tracer(pid, spec)
        t.stdin.write("fire %d\n" % KEYS)
        t.stdin.flush()
        t.stdout.readline()
        wait_rows(tr, family, KEYS)
        for fmt, accept in (("text 0.0.4", None),
                            ("OpenMetrics", OPENMETRICS)):
            r = timed(tr, accept)
            results[(kind, fmt)] = r
            print("%-34s %8.2f %8.2f %8.2f %10d" %
                  (((kind + ", " + fmt),) + r))
        tr.stop()
    # probetop's CPU per interval (0.5 s) with 10,000 histograms, with
    # and without --listen
    for listen in (False, True):
        tr = Tracer(pid, "fixture:multi=quantize(arg0,arg0)", listen,
                    interval="0.5")
        t.stdin.write("fire %d\n" % KEYS)
        t.stdin.flush()
        t.stdout.readline()
        time.sleep(1.5)
        c0 = tr.cpu_s()
        time.sleep(5)
        per = (tr.cpu_s() - c0) / 10 * 1000
        print("probetop CPU per interval, 10,000 histograms, %s: %.1f ms"
              % ("--listen" if listen else "no --listen", per))
        tr.stop()
    t.kill()
    t.wait()
    worst = max(r[1] for r in results.values())
    print("goal: p95 under 20 ms: %s (worst p95 %.2f ms)"
          % ("met" if worst < 20 else "NOT met", worst))


main()
