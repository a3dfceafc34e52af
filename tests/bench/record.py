# SPDX-License-Identifier: MIT
"""Driver of tests/bench/record.sh (see there). argv[1]: the build dir,
argv[2]: seconds a run (60 unless given)."""

import os
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time

BUILD = sys.argv[1]
SECS = float(sys.argv[2]) if len(sys.argv) > 2 else 60.0
PROBETOP = os.path.join(BUILD, "ui/probetop")
TARGET = os.path.join(BUILD, "tests/fixtures/sdt_target")
KEYS = 10000
SPEC = "fixture:ints=count(arg3)"  # 1<<40 | i: KEYS keys a fire


def frames(path):
    """(type, bytes stored, bytes uncompressed) of each whole frame of a
    recording."""
    with open(path, "rb") as f:
        data = f.read()
    out, at = [], 16
    while at + 20 <= len(data):
        stored, body = struct.unpack_from("<II", data, at + 4)
        out.append((chr(data[at]), stored, body))
        at += 20 + stored
    return out


def one_run(record):
    """trace -p of the fixture firing KEYS keys twice a second for SECS
    s; --folded prints one line a spec without a stack key, so that what
    probetop spends beyond reading the maps is the recording's. Returns
    (user+sys s of probetop, the recording's size or 0, its interval
    frames)."""
    t = subprocess.Popen([TARGET], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True)
    t.stdout.readline()
    path = tempfile.mktemp(suffix=".ptr")
    p = subprocess.Popen([PROBETOP, "trace", "-p", str(t.pid), "-i", "1",
                          "-d", str(SECS), "--folded", "-e", SPEC] +
                         (["--record", path] if record else []),
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True)
    p.stderr.readline()  # attached
    done = threading.Event()

    def fire():
        while not done.is_set():
            t.stdin.write("fire %d\n" % KEYS)
            t.stdin.flush()
            t.stdout.readline()
            time.sleep(0.5)
    th = threading.Thread(target=fire, daemon=True)
    th.start()
    _, status, ru = os.wait4(p.pid, 0)
    done.set()
    th.join()
    t.kill()
    t.wait()
    cpu = ru.ru_utime + ru.ru_stime
    if not record:
        return cpu, 0, []
    size, ivals = os.path.getsize(path), [f for f in frames(path)
                                          if f[0] == "I"]
    os.unlink(path)
    return cpu, size, ivals


def main():
    bare = [one_run(False)[0] for _ in range(2)]
    runs = [one_run(True) for _ in range(2)]
    rec = [c for c, _, _ in runs]
    size, ivals = runs[-1][1], runs[-1][2]
    later = sorted(f[1] for f in ivals[1:]) or [0]
    print("%d keys counted every interval, -i 1, %.0f s a run" % (KEYS, SECS))
    print("probetop user+sys: without --record %s s, with %s s" %
          (" ".join("%.2f" % c for c in bare),
           " ".join("%.2f" % c for c in rec)))
    print("recording's cost: %.2f%% of a core" %
          (100.0 * (min(rec) - min(bare)) / SECS))
    print("recording: %d bytes, %d intervals, %.2f MB a minute" %
          (size, len(ivals), size / SECS * 60 / 1e6))
    if ivals:
        print("the first interval (every key defined): %d bytes (%d "
              "uncompressed); the others: median %d bytes, at most %d" %
              (ivals[0][1], ivals[0][2], later[len(later) // 2],
               later[-1]))
    path = tempfile.mktemp(suffix=".ptr")
    print("record.h alone (bench_record): " + subprocess.run(
        [os.path.join(BUILD, "tests/bench/bench_record"), path, str(KEYS)],
        capture_output=True, text=True, check=True).stdout.strip())


main()
