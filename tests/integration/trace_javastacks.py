# SPDX-License-Identifier: MIT
"""Java stacks through compiled frames (issue 36), a JVM started plainly
(Debian's OpenJDK 17, no flag), by -p:

- fn:write=count(ustack) while an interpreted run() writes one byte
  exactly 3000 times through viaA() and 1000 times through viaB(), both
  compiled by C2 beforehand (C2 keeps no frame pointer): the stacks
  through viaA count exactly 3000 and through viaB exactly 1000; the
  frame above each compiled frame is run() at the line of its call: the
  walk stepped through the compiled frame by its size (a frame-pointer
  walk skips run(), whose rbp the compiled code kept); the compiled
  frame is named by its nmethod's debug information: viaA at the line
  of its write, and FileOutputStream.write(int), which C2 inlined into
  it, below it as a frame of its own with its line;
- profile:99=count(ustack) while the main thread spins in compiled
  code, warmed up (code compiled since the last read of the code cache
  ends a stack, for a few hundred ms): at least 90% of its samples in
  Java code reach the thread's start (JavaMain), and inner() is named
  in at least half of them; at least 90% of all the frames sampled (every
  thread's) are named."""

import os
import re
import subprocess
import tempfile
import time

from tap import Tap, Target, Trace, agg_of, java_class, need_root

tap = Tap()
need_root(tap)

PATHS = """\
import java.io.BufferedReader;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;

public class Paths {
    static FileOutputStream out;
    static long sink;

    static void viaA(int i) throws IOException {
        out.write(i); // viaA writes
    }

    static void viaB(int i) throws IOException {
        out.write(i + 1); // viaB writes
    }

    static void warm() throws IOException {
        for (int i = 0; i < 40000; i++) { viaA(i); viaB(i); }
    }

    static void run(int a, int b) throws IOException {
        for (int i = 0; i < a; i++)
            viaA(i); // calls viaA
        for (int i = 0; i < b; i++)
            viaB(i); // calls viaB
    }

    static long inner(long n) {
        long s = 0;
        for (long k = 0; k < n; k++) s += k * k ^ (s >>> 3);
        return s;
    }

    static long outer(long n) { return inner(n) + inner(n / 3); }

    public static void main(String[] args) throws Exception {
        out = new FileOutputStream("/dev/null");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        System.out.println("ready");
        String line;
        while ((line = in.readLine()) != null) {
            String[] w = line.split(" ");
            if (w[0].equals("warm")) {
                warm();
            } else if (w[0].equals("run")) {
                run(Integer.parseInt(w[1]), Integer.parseInt(w[2]));
            } else {
                long end = System.currentTimeMillis() + 1000 * Long.parseLong(w[1]);
                while (System.currentTimeMillis() < end) sink += outer(2000000);
            }
            System.out.println(sink == 42 ? "never" : "done");
        }
    }
}
"""
WRITES = "fn:write=count(ustack)"
STACK = "profile:99=count(ustack)"
VIA = {"A": "void Paths.viaA(int)", "B": "void Paths.viaB(int)"}


def line_of(mark):
    """The line of PATHS marked by the comment mark."""
    return [i + 1 for i, l in enumerate(PATHS.splitlines())
            if l.endswith("// " + mark)][0]


def at(frames, prefix):
    """The index of the frame of frames that starts with prefix, or -1."""
    return next((i for i, f in enumerate(frames) if f.startswith(prefix)),
                -1)


def check_writes(t):
    # --budget off: the counts are checked exactly (write's first
    # instruction may be one the kernel single-steps, whose trap a default
    # budget samples where it is dear)
    tr = Trace(["-p", str(t.pid), "-i", "60", "--budget", "off",
                "-e", WRITES])
    time.sleep(1)  # the code cache read, the JVM's perf map written
    tap.eq(t.send("run 3000 1000").strip(), "done", "run(3000, 1000) ran")
    time.sleep(0.5)
    tr.finish()
    code = subprocess.run(["jcmd", str(t.pid), "Compiler.codelist"],
                          capture_output=True, text=True).stdout
    for via in "AB":  # "ID LEVEL STATE NAME [...]": level 4, in use
        tap.ok(any(l.split()[1:4] == ["4", "0", "Paths.via%s(I)V" % via]
                   for l in code.splitlines() if len(l.split()) > 3),
               "via%s ran as C2 code (Compiler.codelist)" % via, code)
    a = agg_of(tr.final(), WRITES)
    rows = [(r["key"][0], r["total"]) for r in a["rows"]]
    for via, want in (("A", 3000), ("B", 1000)):
        mine = [(k, n) for k, n in rows if at(k, VIA[via]) >= 0]
        tap.eq(sum(n for _, n in mine), want,
               "writes through via%s counted exactly" % via,
               [(";".join(k[-8:]), n) for k, n in rows])
        shapes = sorted(set(tuple(k[at(k, VIA[via]) - 1:
                                    at(k, VIA[via]) + 2])
                            for k, _ in mine))
        tap.eq(shapes, [(
            "void Paths.run(int, int) (Paths.java:%d)"
            % line_of("calls via" + via),
            "%s (Paths.java:%d)" % (VIA[via], line_of("via%s writes" % via)),
            "void java.io.FileOutputStream.write(int) "
            "(FileOutputStream.java:313)")],
            "via%s's compiled frame: its caller run() at the line of the "
            "call, its own line, and FileOutputStream.write(int), which C2 "
            "inlined into it, as a frame of its own" % via)


def check_samples(t):
    tap.eq(t.send("spin 1").strip(), "done", "spin warmed up")
    time.sleep(2)  # outer() and inner() compiled, C2's queue drained
    tr = Trace(["-p", str(t.pid), "-i", "60", "-e", STACK])
    time.sleep(1)
    tap.eq(t.send("spin 3").strip(), "done", "spin ran")
    tr.finish()
    a = agg_of(tr.final(), STACK)
    java = [(";".join(r["key"][0]), r["total"]) for r in a["rows"]
            if "Paths." in ";".join(r["key"][0])]
    total = sum(n for _, n in java)
    whole = sum(n for k, n in java if "JavaMain" in k)
    tap.ok(total > 100 and whole >= 0.9 * total,
           "samples in compiled Java code: %d of %d stacks reach JavaMain"
           % (whole, total),
           sorted(java, key=lambda kn: -kn[1])[:5])
    inner = sum(n for k, n in java if "Paths.inner" in k)
    tap.ok(inner >= 0.5 * total,
           "inner() named in %d of %d samples" % (inner, total))
    frames = named = 0
    for r in a["rows"]:  # every thread's: Java, JVM and libc frames
        for f in r["key"][0]:
            frames += r["total"]
            named += r["total"] * (not re.match(r"(\S+\+)?0x[0-9a-f]+$", f))
    tap.ok(frames and named >= 0.9 * frames,
           "%d of %d sampled frames named (goal: 90%%)" % (named, frames))


with tempfile.TemporaryDirectory() as tmp:
    os.chmod(tmp, 0o755)
    java_class(tmp, "Paths", PATHS)
    t = Target(["java", "-cp", tmp, "Paths"])
    tap.eq(t.send("warm").strip(), "done", "warmed up: viaA and viaB "
           "compiled")
    time.sleep(2)  # C2's queue drained
    check_writes(t)
    check_samples(t)
    t.stop()
tap.done()
