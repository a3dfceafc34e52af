# SPDX-License-Identifier: MIT
"""rbframe, rbline and rbstack keys, and profile:HZ, on Debian's Ruby 3.1
(/usr/bin/ruby3.1 with libruby-3.1.so.3.1: stripped, its method probes
silent), by -p:

- fn:libc.so.6:write=count(rbframe) and =count(rbstack): IO#syswrite (a
  C method, which calls libc's write() once) called exactly N times from
  writer_a and M times from writer_b: each counted exactly by the Ruby
  method that called it (label, file, first line; the C method's frame
  is not Ruby code) and by stack, root first
  (<main>;run;writer_a;syswrite: the C method last, named from Ruby's
  symbol table);
- fn:libc.so.6:write=count(rbline): the same writes by the line that
  called them (method, file, line), two lines of one method (T writes
  and one every fourth) apart, exactly;
- a method whose name is longer than a key shows: cut, its start kept,
  "..." after it; a method named in UTF-8 (def héllo, and a long one of
  two-byte characters, cut between characters): its name as Ruby has it;
- profile:99=count(rbframe) on a loop (4 s: some 400 samples, so that 7
  points are three standard deviations) that does 3/4 of its work in
  heavy and 1/4 in light: heavy 75% of their samples (within 7 points), 99 a
  second of the CPU time the process had (within 35%: the machine may
  be shared); =count(rbstack): both paths under <main>;run;burn;
  =count(rbline): heavy's loop line 75% of the two loop lines' samples;
- a Ruby Thread's writes: by its own stack (block in run;writer_t;
  syswrite), exactly; a write from a thread holding no GVL (Ruby's
  timer thread) dropped as without a Ruby frame;
- GC: ruby:gc__mark__begin counted (-P ruby: the gc role's pause) as
  often as the workload's own GC.count moved: GC.start 25 times, 25;
- a command probetop launches, which exits at once: named all the same
  (the kernel takes names, and rbline's line tables, at first sight),
  exactly;
- -P rubysample (detected by ruby_current_vm_ptr): Top's frames and
  Stacks' stacks as CPU samples, in burn;
- -b with rbframe: one line (no one process to read), exit 1;
- a libruby whose ruby_version says another version (a copy of libruby
  with "3.1.2" changed, run without rubygems, whose rbconfig would
  refuse it) gets one line naming it, and a spec without Ruby
  keys still counts exactly."""

import os
import shutil
import subprocess
import tempfile
import time

from tap import PROBETOP, Tap, Target, Trace, agg_of, file_offset, need_root

tap = Tap()
need_root(tap)

RUBY = "/usr/bin/ruby3.1"
LIBRUBY = "/usr/lib/x86_64-linux-gnu/libruby-3.1.so.3.1"
LONG = "a_method_whose_name_is_much_longer_than_the_sixty_three_bytes_a_key_shows"
WIDE = "w" + "é" * 40
WORKLOAD = """\
# -*- coding: utf-8 -*-
$stdout.sync = true
NULL = File.open("/dev/null", "w")

def writer_a(n)
  i = 0
  while i < n
    NULL.syswrite("a")
    i += 1
  end
end

def writer_b(n)
  i = 0
  while i < n
    NULL.syswrite("b")
    i += 1
  end
end

def two_lines(n)
  i = 0
  while i < n
    NULL.syswrite("x")
    NULL.syswrite("y") if i %% 4 == 0
    i += 1
  end
end

def writer_t(n)
  i = 0
  while i < n
    NULL.syswrite("t")
    i += 1
  end
end

def %s(n)
  n.times { NULL.syswrite("l") }
end

def héllo(n)
  n.times { NULL.syswrite("h") }
end

def %s(n)
  n.times { NULL.syswrite("w") }
end

def heavy(n)
  i = 0
  m = 3 * n
  i += 1 while i < m
end

def light(n)
  i = 0
  m = n
  i += 1 while i < m
end

def burn(t)
  stop = Process.clock_gettime(Process::CLOCK_MONOTONIC) + t
  while Process.clock_gettime(Process::CLOCK_MONOTONIC) < stop
    heavy(20000)
    light(20000)
  end
end

def run(cmd, n)
  case cmd
  when "a" then writer_a(n)
  when "b" then writer_b(n)
  when "two" then two_lines(n)
  when "long" then %s(n)
  when "utf8" then héllo(n)
  when "wide" then %s(n)
  when "burn" then burn(n)
  when "gc" then n.times { GC.start }
  when "thread" then Thread.new { writer_t(n) }.join
  end
end

puts "ready"
while (line = $stdin.gets)
  cmd, n = line.split
  run(cmd, n.to_i)
  puts "done #{GC.count}"
end
""" % (LONG, WIDE, LONG, WIDE)
LINES = WORKLOAD.splitlines()
LINE = {w: next(i + 1 for i, l in enumerate(LINES) if l.startswith(w))
        for w in ("def writer_a", "def writer_b", "def burn",
                  "def heavy", "def light", "def " + LONG, "def héllo",
                  "def " + WIDE, "def two_lines")}
FRAME = "fn:libc.so.6:write=count(rbframe)"
STACK = "fn:libc.so.6:write=count(rbstack)"
PFRAME = "profile:99=count(rbframe)"
PSTACK = "profile:99=count(rbstack)"
LINEK = "fn:libc.so.6:write=count(rbline)"
PLINE = "profile:99=count(rbline)"
N, M, K, T = 1234, 56, 7, 403


def rows(obj, spec):
    """{key: total} of spec's rows, a stack as its folded text; a key
    that two rows show is ("twice", key)."""
    out = {}
    for r in agg_of(obj, spec)["rows"] if agg_of(obj, spec) else []:
        k = tuple(";".join(k) if isinstance(k, list) else k
                  for k in r["key"])
        out[("twice", k) if k in out else k] = r["total"]
    return out


def cpu_s(pid):
    """The CPU time pid's thread has had, in seconds (schedstat)."""
    with open("/proc/%d/schedstat" % pid) as f:
        return int(f.read().split()[0]) / 1e9


def cut(text, tail=False):
    """text as a key shows it: up to 63 bytes; longer, 60 bytes of its
    start followed by "..." (or "..." and its end if tail), never inside
    a UTF-8 character."""
    b = text.encode()
    if len(b) <= 63:
        return text
    keep = b[-60:] if tail else b[:60]
    while True:
        try:
            s = keep.decode()
            break
        except UnicodeDecodeError:
            keep = keep[1:] if tail else keep[:-1]
    return "..." + s if tail else s + "..."


def gc_count(answer):
    """The GC.count a 'done N' answer carries."""
    word, n = answer.split()
    assert word == "done", answer
    return int(n)


def check_exact(script):
    t = Target([RUBY, script])
    # --budget off: the counts are checked exactly; the libc function
    # probed begins with an instruction the kernel single-steps, dear
    # on some machines (14 us a hit), which a default budget samples
    tr = Trace(["-p", str(t.pid), "-i", "60", "--budget", "off",
                "-e", FRAME, "-e", STACK,
                "-e", PFRAME, "-e", PSTACK, "-e", LINEK, "-e", PLINE])
    for cmd, n in (("a", N), ("b", M), ("long", K), ("utf8", K),
                   ("wide", K), ("two", T)):
        tap.ok(t.send("%s %d" % (cmd, n)).startswith("done"),
               "%s ran" % cmd)
    was = cpu_s(t.pid)
    tap.ok(t.send("burn 4").startswith("done"), "burn ran")
    spent = cpu_s(t.pid) - was
    time.sleep(0.3)
    tr.finish()
    t.stop()
    fin = tr.final()
    f, s = rows(fin, FRAME), rows(fin, STACK)
    short = cut(script, tail=True)
    tap.eq(({k: v for k, v in f.items() if k[0].startswith("writer_")},
            {k: v for k, v in s.items() if ";writer_" in k[0]}),
           ({("writer_a", short, LINE["def writer_a"]): N,
             ("writer_b", short, LINE["def writer_b"]): M},
            {("<main>;run;writer_a;syswrite",): N,
             ("<main>;run;writer_b;syswrite",): M}),
           "syswrite counted exactly by the Ruby method that called it "
           "(label, file, first line) and by stack, root first, the C "
           "method last", (f, s))
    tap.eq({k: v for k, v in f.items() if k[0].startswith("block in")},
           {(cut("block in " + LONG), short, LINE["def " + LONG] + 1): K,
            ("block in héllo", short, LINE["def héllo"] + 1): K,
            (cut("block in " + WIDE), short, LINE["def " + WIDE] + 1): K},
           "a long method's block cut with '...', a UTF-8 one as Ruby "
           "names it, a long UTF-8 one cut between characters (a block's "
           "first line: the line after its method's def)", f)
    tap.eq({k: v for k, v in s.items()
            if k[0].startswith("<main>;run;") and ";times;" in k[0]},
           {("<main>;run;%s;times;%s;syswrite" % (cut(LONG),
                                                   cut("block in " + LONG)),):
            K,
            ("<main>;run;héllo;times;block in héllo;syswrite",): K,
            ("<main>;run;%s;times;%s;syswrite" % (cut(WIDE),
                                                   cut("block in " + WIDE)),):
            K},
           "their stacks: the long and UTF-8 names as the frames show "
           "them, Integer#times named", s)
    check_lines(fin, short)
    drops = sum(agg_of(fin, k)["drops"] for k in (FRAME, STACK, LINEK))
    tap.eq(drops, 0, "nothing dropped by the exact specs")
    pf, ps = rows(fin, PFRAME), rows(fin, PSTACK)
    hv = pf.get(("heavy", short, LINE["def heavy"]), 0)
    lt = pf.get(("light", short, LINE["def light"]), 0)
    tap.ok(hv + lt and abs(hv / (hv + lt) - 0.75) <= 0.07,
           "profile:99: heavy has %.1f%% of heavy's and light's samples "
           "(%d:%d; 75%% by work, within 7 points)"
           % (100 * hv / max(hv + lt, 1), hv, lt), pf)
    burn = sum(v for k, v in pf.items() if k[0] in ("heavy", "light",
                                                     "burn"))
    tap.ok(spent > 0.4 and 0.65 <= burn / (99 * spent) <= 1.35,
           "profile:99: 99 samples a CPU second (%.2f s: %d)"
           % (spent, burn), pf)
    inburn = {k[0]: v for k, v in ps.items()
              if k[0].split(";")[-1] in ("heavy", "light")}
    tap.ok(set(inburn) == {"<main>;run;burn;heavy", "<main>;run;burn;light"},
           "profile:99 by rbstack: heavy and light sampled, always under "
           "<main>;run;burn", ps)


def check_lines(fin, short):
    """rbline: the syswrites by the line that calls them, exactly (two
    lines of one method apart: T and T/4 rounded up); profile:99 by
    line: heavy's loop line 75% of the two loops' samples (within 7
    points), the two loop lines most of heavy's and light's samples."""
    ln, pl = rows(fin, LINEK), rows(fin, PLINE)
    two = LINE["def two_lines"]
    tap.eq({k: v for k, v in ln.items()
            if k[0] in ("writer_a", "writer_b", "two_lines")},
           {("writer_a", short, LINE["def writer_a"] + 3): N,
            ("writer_b", short, LINE["def writer_b"] + 3): M,
            ("two_lines", short, two + 3): T,
            ("two_lines", short, two + 4): (T + 3) // 4},
           "rbline: syswrite counted exactly by the line that called it "
           "(method, file, line; two lines of one method apart)", ln)
    tap.eq({k: v for k, v in ln.items() if k[0].startswith("block in")},
           {(cut("block in " + LONG), short, LINE["def " + LONG] + 1): K,
            ("block in héllo", short, LINE["def héllo"] + 1): K,
            (cut("block in " + WIDE), short, LINE["def " + WIDE] + 1): K},
           "rbline: a block's write by its block's line", ln)
    hv = pl.get(("heavy", short, LINE["def heavy"] + 3), 0)
    lt = pl.get(("light", short, LINE["def light"] + 3), 0)
    both = sum(v for k, v in pl.items() if k[0] in ("heavy", "light"))
    tap.ok(hv + lt and abs(hv / (hv + lt) - 0.75) <= 0.07 and
           hv + lt >= 0.9 * both,
           "profile:99 by rbline: heavy's loop line has %.1f%% of the two "
           "loop lines' samples (%d:%d; 75%% by work, within 7 points), "
           "%d of heavy's and light's %d samples on them"
           % (100 * hv / max(hv + lt, 1), hv, lt, hv + lt, both), pl)


def check_thread(script):
    """A Ruby thread of its own: its stack from its block, exactly; a
    write from a thread that holds no GVL (Ruby's timer thread, told of
    the new thread) dropped as without a Ruby frame, the count a plain
    spec beside it gives."""
    t = Target([RUBY, script])
    plain = "fn:libc.so.6:write"
    tr = Trace(["-p", str(t.pid), "-i", "60", "--budget", "off",
                "-e", STACK, "-e", plain])
    tap.ok(t.send("thread 33").startswith("done"), "thread ran")
    time.sleep(0.2)
    tr.finish()
    t.stop()
    fin = tr.final()
    s = rows(fin, STACK)
    total = sum(rows(fin, plain).values())
    tap.eq(s, {("block in run;writer_t;syswrite",): 33},
           "a thread's writes by its own stack, from its block, exactly",
           (s, tr.stderr))
    tap.eq(agg_of(fin, STACK)["drops_by"]["ruby"], total - 33,
           "the %d other writes (no thread holding the GVL) dropped as "
           "without a Ruby frame" % (total - 33))


def check_gc(script):
    """ruby:gc__mark__begin (the ruby probeset's gc pause) counted as often
    as GC.count moved, GC.start 25 times: 25."""
    t = Target([RUBY, script])
    tr = Trace(["-p", str(t.pid), "-i", "60", "-P", "ruby"])
    before = gc_count(t.send("nothing 0"))
    after = gc_count(t.send("gc 25"))
    last = gc_count(t.send("nothing 0"))
    time.sleep(0.2)
    tr.finish()
    t.stop()
    pause = "ruby:gc__mark__begin..ruby:gc__mark__end=latency()"
    got = sum(r["count"] for r in agg_of(tr.final(), pause)["rows"])
    tap.eq((after - before, last - before, got), (25, 25, 25),
           "GC.start 25 times: GC.count moved by 25, and 25 marks counted "
           "by -P ruby's gc pause", tr.stderr)


SHORT = """\
NULL = File.open("/dev/null", "w")
def writer(n)
  i = 0
  while i < n
    NULL.syswrite("s")
    i += 1
  end
end
writer(50)
NULL.syswrite("t")
"""


def check_launched(tmp):
    """A command probetop launches, which ends at once: named all the same
    (at first sight, in the kernel), exactly."""
    short = os.path.join(tmp, "short.rb")
    with open(short, "w") as f:
        f.write(SHORT)
    tr = Trace(["-i", "60", "--budget", "off",
                "-e", FRAME, "-e", STACK, "-e", LINEK, "--",
                RUBY, short])
    tr.finish(sig=None)
    fin = tr.final()
    tap.eq((rows(fin, FRAME), rows(fin, STACK), rows(fin, LINEK)),
           ({("writer", short, 2): 50, ("<main>", short, 0): 1},
            {("<main>;writer;syswrite",): 50, ("<main>;syswrite",): 1},
            {("writer", short, 5): 50, ("<main>", short, 10): 1}),
           "a launched ruby that exits at once: its frames named, exactly "
           "(the top level's first line 0, as Ruby keeps it)",
           tr.stderr)


def check_probeset(script):
    t = Target([RUBY, script])
    tr = Trace(["-p", str(t.pid), "-i", "60", "-P", "rubysample"])
    tap.ok(t.send("burn 1").startswith("done"), "rubysample: burn ran")
    time.sleep(0.2)
    tr.finish()
    t.stop()
    fin = tr.final()
    pf, ps = rows(fin, PFRAME), rows(fin, PSTACK)
    short = cut(script, tail=True)
    inburn = sum(v for k, v in pf.items()
                 if k[0] in ("heavy", "light", "burn") and k[1] == short)
    tap.ok(inburn > 50 and sum(pf.values()) - inburn <= 5,
           "-P rubysample: Top's frames sampled, in burn (%d)" % inburn,
           (pf, tr.stderr))
    # as Top's: a sample or so of its reading the command or answering
    # (one in <main>;gets beside 98 in burn, CI53)
    under = sum(v for k, v in ps.items() if k[0].startswith("<main>;run;burn"))
    tap.ok(under > 50 and sum(ps.values()) - under <= 5,
           "-P rubysample: Stacks' Ruby stacks sampled, all but a few under "
           "<main>;run;burn (%d)" % under, ps)


def check_unknown(script, tmp):
    """A Ruby whose ruby_version names another version: said in one line,
    and the rest goes on."""
    libdir = os.path.join(tmp, "lib")
    os.makedirs(libdir)
    other = os.path.join(libdir, os.path.basename(LIBRUBY))
    shutil.copy(LIBRUBY, other)
    nm = subprocess.run(["readelf", "-Ws", "--dyn-syms", LIBRUBY],
                        capture_output=True, text=True).stdout
    addr = next(int(l.split()[1], 16) for l in nm.splitlines()
                if l.split()[-1:] == ["ruby_version"])
    with open(other, "r+b") as f:
        f.seek(file_offset(LIBRUBY, addr))
        assert f.read(6) == b"3.1.2\0"
        f.seek(file_offset(LIBRUBY, addr))
        f.write(b"3.9.2\0")
    env = dict(os.environ, LD_LIBRARY_PATH=libdir)
    t = Target([RUBY, "--disable-gems", script], env=env)
    tr = Trace(["-p", str(t.pid), "-i", "60", "--budget", "off",
                "-e", FRAME, "-e",
                "fn:libc.so.6:write"])
    t.send("a 9")
    time.sleep(0.2)
    tr.finish()
    t.stop()
    said = [l for l in tr.stderr.splitlines() if "runs Ruby" in l]
    tap.ok(len(said) == 1 and "runs Ruby 3.9" in said[0] and
           "read Ruby 3.0-3.3" in said[0],
           "another version: one line naming it and what is read",
           tr.stderr)
    writes = sum(rows(tr.final(), "fn:libc.so.6:write").values())
    tap.eq(writes, 9, "another version: a spec without Ruby keys still "
           "counts exactly (9 syswrites; puts answers by writev)")


def check_binary():
    """-b (every process of a file) has no one Ruby to read: one line,
    exit 1."""
    r = subprocess.run([PROBETOP, "trace", "-b", LIBRUBY, "-d", "1", "-e",
                        FRAME], capture_output=True, text=True)
    tap.ok(r.returncode == 1 and r.stderr == "probetop: -e '%s': cannot "
           "attach: pyframe, pystack, mixstack, phpframe, phpstack, "
           "rbframe, rbline and rbstack read one process's interpreter: "
           "give -p "
           "PID or a command, not -b\n"
           % FRAME, "-b with rbframe: one line, exit 1", r.stderr)


if not os.path.exists(RUBY):
    tap.skip_all(RUBY + " not installed (ruby3.1, scripts/setup)")
with tempfile.TemporaryDirectory() as tmp:
    deep = os.path.join(tmp, "a-directory-name-long-enough-to-be-cut-" * 2)
    os.makedirs(deep)
    script = os.path.join(deep, "work.rb")
    with open(script, "w") as f:
        f.write(WORKLOAD)
    check_exact(script)
    check_thread(script)
    check_gc(script)
    check_launched(tmp)
    check_probeset(script)
    check_unknown(script, tmp)
check_binary()
tap.done()
