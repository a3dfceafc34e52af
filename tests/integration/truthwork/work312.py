# SPDX-License-Identifier: MIT
# The truth harness's workload for pyenv's CPython 3.12 (trace_truth.py,
# its default probeset, pysample): N times alpha (3 parts of CPU) and
# beta (1 part), each timed with time.thread_time(), a collection of one
# generation every 10th, 2 ms asleep. The truth: the collections and
# what they found by generation (gc.get_stats()), the CPU time of alpha,
# of beta and of the process.
import gc, os, sys, time


def alpha(n):
    t = 0
    for i in range(n):
        t += i
    return t


def beta(n):
    t = 0
    for i in range(n):
        t += i
    return t


def run(n):
    ta = tb = 0.0
    cycles = 0
    for it in range(n):
        t0 = time.thread_time()
        alpha(60000)
        t1 = time.thread_time()
        beta(20000)
        t2 = time.thread_time()
        ta += t1 - t0
        tb += t2 - t1
        if it % 10 == 9:
            a = []
            a.append(a)
            del a
            gc.collect((it // 10) % 3)
        time.sleep(0.002)
    return ta, tb


os.write(1, b"ready %d\n" % os.getpid())
os.read(0, 64)
before = gc.get_stats()
c0 = time.process_time()
w0 = time.monotonic()
ta, tb = run(int(sys.argv[1]))
cpu = time.process_time() - c0
elapsed = time.monotonic() - w0
after = gc.get_stats()
gcs = []
for gen in range(3):
    a, b = after[gen], before[gen]
    gcs.append([a["collections"] - b["collections"],
                a["collected"] + a["uncollectable"] - b["collected"] -
                b["uncollectable"]])
os.write(1, (repr({"alpha_s": ta, "beta_s": tb, "cpu_s": cpu,
                   "elapsed_s": elapsed, "gc": gcs}) + "\n").encode())
os.read(0, 64)
os._exit(0)
