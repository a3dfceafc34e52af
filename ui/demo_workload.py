# SPDX-License-Identifier: MIT
"""probetop's bundled demo: a small Python program whose USDT probes really
fire on Debian's /usr/bin/python3.11 - function calls and returns, garbage
collections of every generation, and file IO - forever, until killed.

Function calls are made from C (sorted() with a key, map()) as well as from
Python, because on CPython 3.11 function__entry only fires for frames that
a C-level call enters (python/cpython#98894); function__return fires for
every Python frame."""

import gc
import os
import tempfile
import time


def leaf(n):
    return n * 2 + 1


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def churn(count):
    """Cyclic garbage, so the collector has work (gc__start/gc__done)."""
    for _ in range(count):
        a, b = [], []
        a.append(b)
        b.append(a)


def write_and_read(path, size):
    with open(path, "wb") as f:
        f.write(b"x" * size)
        f.flush()
        os.fsync(f.fileno())
    with open(path, "rb") as f:
        return len(f.read())


def main():
    path = os.path.join(tempfile.gettempdir(), "probetop-demo-%d" % os.getpid())
    print("probetop demo workload, pid %d" % os.getpid(), flush=True)
    try:
        while True:
            list(map(leaf, range(2000)))      # C-level calls into leaf
            sorted(range(500), key=leaf)
            fib(15)
            churn(2000)
            if int(time.time() * 10) % 10 == 0:
                gc.collect()
            write_and_read(path, 64 * 1024)
            time.sleep(0.05)
    finally:
        os.unlink(path) if os.path.exists(path) else None


if __name__ == "__main__":
    main()
