# SPDX-License-Identifier: MIT
# The truth harness's CPython 3.11 workload (trace_truth.py, -P python):
# a service-like loop that counts its own calls. "ready PID", then after
# a line on stdin, N times: 500 calls of a one-line function, a loop of
# 2,000, a loop of 20,000 every 20th, a collection of one generation
# every 100th, an audit event every 10th, 2 ms asleep (with "paced" as a
# second argument: asleep until the next round is due, one every 3 ms,
# as a service whose requests come at their own pace). Then the truth as
# one line (a Python literal), and after another line os._exit(0).
# Nothing between the two lines calls a Python function it does not
# count: stdin is read with os.read (sys.stdin's decoder is Python code
# in codecs), the truth is made without comprehensions, written with
# sys.stdout.write, and os._exit skips the interpreter's shutdown (and
# the return of <module>). Each function returns from one line, so one
# row per function however probetop keys it (first line or return line).
import gc, os, sys, time

PERIOD_S = 0.003  # paced: a round every 3 ms


def one(x): return x + 1


def loop2k(n):
    t = 0
    for i in range(n):
        t += i
    return t


def loop20k(n):
    t = 0
    for i in range(n):
        t += i
    return t


def run(n, paced):
    n1 = n2 = n3 = ns = na = 0
    due = time.monotonic()
    for it in range(n):
        for i in range(500):
            one(i)
            n1 += 1
        loop2k(2000)
        n2 += 1
        if it % 20 == 19:
            loop20k(20000)
            n3 += 1
        if it % 100 == 99:
            a = []
            a.append(a)
            del a
            gc.collect((it // 100) % 3)
        if it % 10 == 0:
            sys.audit("truth.tick", it)
            na += 1
        if paced:  # the next round at its time, however long this took
            due += PERIOD_S
            time.sleep(max(0.0, due - time.monotonic()))
        else:
            time.sleep(0.002)
        ns += 1
    return n1, n2, n3, ns, na


sys.stdout.write("ready %d\n" % os.getpid())
sys.stdout.flush()
os.read(0, 64)
before = gc.get_stats()
t0 = time.monotonic()
n1, n2, n3, ns, na = run(int(sys.argv[1]), sys.argv[2:] == ["paced"])
elapsed = time.monotonic() - t0
after = gc.get_stats()
gcs = []
for gen in range(3):
    a, b = after[gen], before[gen]
    gcs.append([a["collections"] - b["collections"],
                a["collected"] + a["uncollectable"] - b["collected"] -
                b["uncollectable"]])
sys.stdout.write(repr({
    "calls": {"one": n1, "loop2k": n2, "loop20k": n3, "run": 1},
    "sleeps": ns,
    "gc": gcs, "audits": na,
    "elapsed_s": elapsed, "cpu_s": time.process_time()}) + "\n")
sys.stdout.flush()
os.read(0, 64)
os._exit(0)
